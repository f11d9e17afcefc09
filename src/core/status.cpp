// Status code names (core/status.hpp).
#include "core/status.hpp"

namespace ca {

const char *status_name(ca_status_t s) {
  switch (s) {
    case CA_OK: return "CA_OK";
    case CA_EINVAL: return "CA_EINVAL";
    case CA_ENOMEM: return "CA_ENOMEM";
    case CA_ENOTFOUND: return "CA_ENOTFOUND";
    case CA_ECYCLE: return "CA_ECYCLE";
    case CA_EKERNEL: return "CA_EKERNEL";
    case CA_EIO: return "CA_EIO";
    case CA_EFORMAT: return "CA_EFORMAT";
    case CA_ECANCELED: return "CA_ECANCELED";
    case CA_EINTERNAL: return "CA_EINTERNAL";
    case CA_EEXISTS: return "CA_EEXISTS";
    case CA_ETYPE: return "CA_ETYPE";
    case CA_EVERSION: return "CA_EVERSION";
    case CA_EUNSUPPORTED: return "CA_EUNSUPPORTED";
    default: return "CA_E?";
  }
}

}  // namespace ca
