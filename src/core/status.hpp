// Status code names (the engine's half of ca_status_str, which capi/ exports).
#pragma once

#include <chunkarray/chunkarray.h>

namespace ca {

/// "CA_OK", "CA_EINVAL", ...; "CA_E?" for a code the library does not define. Static storage.
const char *status_name(ca_status_t s);

}  // namespace ca
