// Pictures: the chunk-grid SVG dask shows for an array in a notebook (dask/array/svg.py) and a
// graphviz rendering of a task graph (dask.visualize).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <string>
#include <vector>

#include "array/array.hpp"
#include "graph/plan.hpp"

namespace ca {

namespace {

// ---- SVG (dask.array.svg) -----------------------------------------------------------------------

constexpr const char *kTextStyle = "font-size=\"1.0rem\" font-weight=\"100\" text-anchor=\"middle\"";
// A dimension with more blocks than this is drawn as a solid fill instead of one line per block.
constexpr size_t kMaxLines = 100;

std::string fmt(const char *f, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, a);
  return buf;
}
// Python's '%d' % float: truncation toward zero.
std::string d(double v) { return std::to_string(static_cast<long long>(v)); }
std::string f6(double v) { return fmt("%f", v); }
std::string g(double v) { return fmt("%.6g", v); }

double ratio_response(double x) {
  if (x < M_E) return x;
  if (x <= 100) return std::log(x + 12.4);
  return std::log(100 + 12.4);
}

std::vector<double> draw_sizes(const std::vector<Index> &shape, double size) {
  Index mx = 0;
  for (Index s : shape) mx = std::max(mx, s);
  std::vector<double> out;
  for (Index s : shape) {
    if (mx == 0) {
      out.push_back(size);
      continue;
    }
    double r = ratio_response(double(mx) / std::max(0.1, double(s)));
    out.push_back(r > 0 ? size / r : size);
  }
  return out;
}

// Block boundaries of one dimension scaled to `size` pixels.
std::vector<double> grid_points(const std::vector<Index> &chunks, double size) {
  std::vector<double> x{0};
  double acc = 0;
  for (Index c : chunks) x.push_back(acc += double(c));
  if (acc <= 0) return {0, size};  // zero-length dimension: one empty block
  for (double &v : x) v = v * size / acc;
  return x;
}

struct Drawing {
  std::vector<std::string> lines;
  double min_x = 0, max_x = 0, min_y = 0, max_y = 0;
};

void lines_of(std::vector<std::string> &out, const std::vector<double> &x1, const std::vector<double> &y1,
              const std::vector<double> &x2, const std::vector<double> &y2) {
  size_t n = x1.size();
  // Too many lines: only the two borders (the fill shows the grid as solid).
  std::vector<size_t> idx;
  if (n > kMaxLines + 1) idx = {0, n - 1};
  else
    for (size_t i = 0; i < n; ++i) idx.push_back(i);
  for (size_t k = 0; k < idx.size(); ++k) {
    size_t i = idx[k];
    bool border = k == 0 || k + 1 == idx.size();
    out.push_back("  <line x1=\"" + d(x1[i]) + "\" y1=\"" + d(y1[i]) + "\" x2=\"" + d(x2[i]) + "\" y2=\"" + d(y2[i]) +
                  "\"" + (border ? " style=\"stroke-width:2\"" : "") + " />");
  }
}

// dask's svg_grid: x are the vertical-line positions, y the horizontal ones.
Drawing svg_grid(const std::vector<double> &x, const std::vector<double> &y, double ox, double oy, double skew0,
                 double skew1) {
  Drawing dr;
  size_t ny = y.size(), nx = x.size();
  double xmax = x.back(), ymax = y.back();
  std::vector<double> x1(ny), y1(ny), x2(ny), y2(ny);
  for (size_t i = 0; i < ny; ++i) {
    x1[i] = ox + skew1 * y[i];
    y1[i] = y[i] + oy;
    x2[i] = xmax + ox + skew1 * y[i];
    y2[i] = y[i] + oy + xmax * skew0;
  }
  dr.min_x = std::min(*std::min_element(x1.begin(), x1.end()), *std::min_element(x2.begin(), x2.end()));
  dr.min_y = std::min(*std::min_element(y1.begin(), y1.end()), *std::min_element(y2.begin(), y2.end()));
  dr.max_x = std::max(*std::max_element(x1.begin(), x1.end()), *std::max_element(x2.begin(), x2.end()));
  dr.max_y = std::max(*std::max_element(y1.begin(), y1.end()), *std::max_element(y2.begin(), y2.end()));
  dr.lines.push_back("");
  dr.lines.push_back("  <!-- Horizontal lines -->");
  lines_of(dr.lines, x1, y1, x2, y2);

  std::vector<double> vx1(nx), vy1(nx), vx2(nx), vy2(nx);
  for (size_t i = 0; i < nx; ++i) {
    vx1[i] = x[i] + ox;
    vy1[i] = oy + skew0 * x[i];
    vx2[i] = x[i] + ox + skew1 * ymax;
    vy2[i] = ymax + oy + skew0 * x[i];
  }
  dr.lines.push_back("");
  dr.lines.push_back("  <!-- Vertical lines -->");
  lines_of(dr.lines, vx1, vy1, vx2, vy2);

  bool solid = nx > kMaxLines + 1 || ny > kMaxLines + 1;
  const char *color = solid ? "8B4903" : "ECB172";
  std::string corners = g(vx1[0]) + "," + g(vy1[0]) + " " + g(vx1[nx - 1]) + "," + g(vy1[nx - 1]) + " " +
                        g(vx2[nx - 1]) + "," + g(vy2[nx - 1]) + " " + g(vx2[0]) + "," + g(vy2[0]);
  dr.lines.push_back("");
  dr.lines.push_back("  <!-- Colored Rectangle -->");
  dr.lines.push_back("  <polygon points=\"" + corners + "\" style=\"fill:#" + color + "A0;stroke-width:0\"/>");
  return dr;
}

struct Part {
  std::vector<std::string> lines;
  double width = 0, height = 0;  // absolute extents (including the offset)
};

std::string header(double w, double h) {
  return "<svg width=\"" + d(w) + "\" height=\"" + d(h) + "\" style=\"stroke:rgb(0,0,0);stroke-width:1\" >\n";
}

std::string join(const std::vector<std::string> &lines) {
  std::string s;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i) s += '\n';
    s += lines[i];
  }
  return s;
}

Part svg_2d(const Chunks &chunks, const std::vector<double> &sizes, double ox, double oy) {
  std::vector<Index> shape;
  for (auto &c : chunks) {
    Index s = 0;
    for (Index v : c) s += v;
    shape.push_back(s);
  }
  std::vector<double> y = grid_points(chunks[0], sizes[0]), x = grid_points(chunks[1], sizes[1]);
  Drawing dr = svg_grid(x, y, ox, oy, 0, 0);
  int rotate = shape[0] >= 100 ? -90 : 0;
  Part p;
  p.lines = std::move(dr.lines);
  p.lines.push_back("");
  p.lines.push_back("  <!-- Text -->");
  p.lines.push_back("  <text x=\"" + f6((dr.min_x + dr.max_x) / 2) + "\" y=\"" + f6(dr.max_y + 20) + "\" " +
                    kTextStyle + " >" + std::to_string(shape[1]) + "</text>");
  p.lines.push_back("  <text x=\"" + f6(dr.max_x + 20) + "\" y=\"" + f6((dr.min_y + dr.max_y) / 2) + "\" " +
                    kTextStyle + " transform=\"rotate(" + std::to_string(rotate) + "," + f6(dr.max_x + 20) + "," +
                    f6((dr.min_y + dr.max_y) / 2) + ")\">" + std::to_string(shape[0]) + "</text>");
  p.width = dr.max_x + 50;
  p.height = dr.max_y + 50;
  return p;
}

Part svg_3d(const Chunks &chunks, const std::vector<double> &sizes, double ox, double oy) {
  std::vector<Index> shape;
  for (auto &c : chunks) {
    Index s = 0;
    for (Index v : c) s += v;
    shape.push_back(s);
  }
  std::vector<double> x = grid_points(chunks[0], sizes[0]), y = grid_points(chunks[1], sizes[1]),
                      z = grid_points(chunks[2], sizes[2]);
  std::vector<double> x17 = x;
  for (double &v : x17) v /= 1.7;
  Drawing xy = svg_grid(x17, y, ox + 10, oy, 1, 0);
  Drawing zx = svg_grid(z, x17, ox + 10, oy, 0, 1);
  double max_x = zx.max_y;
  Drawing zy = svg_grid(z, y, ox + max_x + 10, oy + max_x, 0, 0);
  int rotate = shape[1] >= 100 ? -90 : 0;
  Part p;
  for (auto *dr : {&xy, &zx, &zy}) p.lines.insert(p.lines.end(), dr->lines.begin(), dr->lines.end());
  double cx = (zy.min_x + zy.max_x) / 2, cy = (zy.min_y + zy.max_y) / 2;
  double dx = (xy.min_x + xy.max_x) / 2 - 10, dy = xy.max_y - (xy.max_x - xy.min_x) / 2 + 20;
  p.lines.push_back("");
  p.lines.push_back("  <!-- Text -->");
  p.lines.push_back("  <text x=\"" + f6(cx) + "\" y=\"" + f6(zy.max_y + 20) + "\" " + kTextStyle + " >" +
                    std::to_string(shape[2]) + "</text>");
  p.lines.push_back("  <text x=\"" + f6(zy.max_x + 20) + "\" y=\"" + f6(cy) + "\" " + kTextStyle +
                    " transform=\"rotate(" + std::to_string(rotate) + "," + f6(zy.max_x + 20) + "," + f6(cy) +
                    ")\">" + std::to_string(shape[1]) + "</text>");
  p.lines.push_back("  <text x=\"" + f6(dx) + "\" y=\"" + f6(dy) + "\" " + kTextStyle + " transform=\"rotate(45," +
                    f6(dx) + "," + f6(dy) + ")\">" + std::to_string(shape[0]) + "</text>");
  p.width = zy.max_x + 50;
  p.height = zy.max_y + 50;
  return p;
}

}  // namespace

std::string array_to_svg(const Array &a, int32_t size) {
  CA_CHECK(size >= 0, CA_EINVAL, "array_to_svg: size must be >= 0 (got ", size, ")");
  require_known_chunks(a, "array_to_svg (dask: \"Can't generate SVG with unknown chunk sizes\")");
  double sz = size == 0 ? 120 : size;
  Chunks chunks = a.chunks;
  const std::string footer = "\n</svg>";
  if (chunks.empty()) {
    // dask draws nothing for 0-d arrays; a labelled empty box keeps the picture well-formed.
    return header(sz, 60) + "  <!-- 0-d array -->\n  <rect x=\"10\" y=\"10\" width=\"40\" height=\"40\" " +
           "style=\"fill:#ECB172A0;stroke-width:2\"/>\n  <text x=\"" + f6(sz / 2 + 30) + "\" y=\"35\" " + kTextStyle +
           " >scalar</text>" + footer;
  }
  if (chunks.size() == 1) chunks.insert(chunks.begin(), std::vector<Index>{1});  // dask's svg_1d
  if (chunks.size() == 2 || chunks.size() == 3) {
    std::vector<Index> shape;
    for (auto &c : chunks) {
      Index s = 0;
      for (Index v : c) s += v;
      shape.push_back(s);
    }
    std::vector<double> sizes = draw_sizes(shape, sz);
    Part p = chunks.size() == 2 ? svg_2d(chunks, sizes, 0, 0) : svg_3d(chunks, sizes, 0, 0);
    return header(p.width, p.height) + join(p.lines) + footer;
  }
  // dask's svg_nd: groups of three dimensions (the first group 1 or 2) drawn side by side.
  if (chunks.size() % 3 == 1) chunks.insert(chunks.begin(), std::vector<Index>{1});
  std::vector<Index> shape;
  for (auto &c : chunks) {
    Index s = 0;
    for (Index v : c) s += v;
    shape.push_back(s);
  }
  std::vector<double> sizes = draw_sizes(shape, sz);
  double left = 0, height = 0;
  std::vector<std::string> parts;
  size_t pos = 0;
  while (pos < chunks.size()) {
    size_t n = (chunks.size() - pos) % 3 ? (chunks.size() - pos) % 3 : 3;
    Chunks sub(chunks.begin() + long(pos), chunks.begin() + long(pos + n));
    std::vector<double> ss(sizes.begin() + long(pos), sizes.begin() + long(pos + n));
    Part p = n == 2 ? svg_2d(sub, ss, left, 0) : svg_3d(sub, ss, left, 0);
    parts.push_back(join(p.lines));
    height = std::max(height, p.height);
    left = p.width + 10;
    pos += n;
  }
  std::string body;
  for (size_t i = 0; i < parts.size(); ++i) body += (i ? "\n\n" : "") + parts[i];
  return header(left, height) + body + footer;
}

// ---- graphviz -----------------------------------------------------------------------------------

namespace {

constexpr int32_t kMaxDotNodes = 2000;

std::string dot_escape(const std::string &s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (c == '\n') {
      o += "\\n";
      continue;
    }
    o += c;
  }
  return o;
}

}  // namespace

std::string graph_to_dot(const Graph &g, const std::vector<KeyRef> &keys) {
  std::vector<KeyRef> want = keys;
  std::deque<std::vector<Index>> store;  // stable storage for the indices of collected keys
  int64_t omitted = 0;                    // keys left out of the collection below
  if (want.empty()) {
    omitted = g.num_tasks();
    // Every key of the graph (up to the display cap: the plan adds what they depend on).
    for (const LayerPtr &l : g.layers()) {
      for (int64_t t = 0; t < l->num_tasks() && want.size() < size_t(kMaxDotNodes); ++t) {
        store.emplace_back(size_t(std::max(l->nindex(), 1)));
        l->key_at(t, store.back().data());
        want.push_back(KeyRef{l->name().c_str(), store.back().data(), l->nindex()});
      }
    }
    omitted = std::max<int64_t>(0, omitted - int64_t(want.size()));
  }
  std::string out = "digraph {\n  graph [rankdir=BT];\n  node [shape=box, style=\"rounded,filled\", "
                    "fillcolor=\"#ECB172\", fontname=\"Helvetica\", fontsize=10];\n";
  if (want.empty()) return out + "}\n";
  std::unique_ptr<Plan> plan = build_plan(g, want.data(), want.size(), nullptr);
  int32_t n = plan->size();
  int32_t shown = std::min(n, kMaxDotNodes);
  std::vector<bool> is_output(size_t(n), false);
  for (int32_t o : plan->outputs) is_output[size_t(o)] = true;
  for (int32_t t = 0; t < shown; ++t) {
    const PlanTask &pt = plan->tasks[size_t(t)];
    const std::string &kernel = pt.layer->kernel_of(pt.local);
    out += "  t" + std::to_string(t) + " [label=\"" + dot_escape(plan->key_of(t)) + "\\n" + dot_escape(kernel) +
           "\"" + (is_output[size_t(t)] ? ", peripheries=2, fillcolor=\"#8B4903\", fontcolor=white" : "") + "];\n";
  }
  for (int32_t t = 0; t < shown; ++t) {
    const PlanTask &pt = plan->tasks[size_t(t)];
    for (int32_t i = pt.dep_begin; i < pt.dep_end; ++i) {
      int32_t dep = plan->deps[size_t(i)];
      if (dep < shown) out += "  t" + std::to_string(dep) + " -> t" + std::to_string(t) + ";\n";
    }
  }
  omitted += n - shown;
  if (omitted > 0)
    out += "  note [shape=plaintext, style=\"\", label=\"" + std::to_string(omitted) +
           " more tasks not shown (at most " + std::to_string(kMaxDotNodes) + " are drawn)\"];\n";
  return out + "}\n";
}

}  // namespace ca
