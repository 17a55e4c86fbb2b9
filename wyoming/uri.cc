#include "wyoming/uri.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

namespace earshot::wyoming {
namespace {

Error Bad(std::string_view text, const std::string& why) {
  return Error{"--uri " + std::string(text) + ": " + why};
}

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

// The address a socket is bound to, as a URI.
std::string BoundUri(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return "?";
  char host[NI_MAXHOST], port[NI_MAXSERV];
  if (getnameinfo(reinterpret_cast<sockaddr*>(&addr), len, host, sizeof(host), port, sizeof(port),
                  NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
    return "?";
  }
  const bool v6 = addr.ss_family == AF_INET6;
  return std::string("tcp://") + (v6 ? "[" : "") + host + (v6 ? "]:" : ":") + port;
}

Result<int> ListenTcp(const ListenUri& uri, std::string* bound) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(uri.port);
  if (int rc = getaddrinfo(uri.host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    return Error{"tcp://" + uri.host + ":" + port + ": " + gai_strerror(rc)};
  }
  std::string last = "no address";
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      last = Errno("socket");
      continue;
    }
    const int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
    if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, 64) == 0) {
      freeaddrinfo(found);
      *bound = BoundUri(fd);
      return fd;
    }
    last = Errno("bind");
    close(fd);
  }
  freeaddrinfo(found);
  return Error{"tcp://" + uri.host + ":" + port + ": " + last};
}

Result<int> ListenUnix(const ListenUri& uri) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, uri.path.data(), uri.path.size());
  struct stat st {};
  if (lstat(uri.path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) return Error{uri.path + ": exists and is not a socket"};
    unlink(uri.path.c_str());  // a previous run's
  }
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Error{Errno("socket")};
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || listen(fd, 64) != 0) {
    Error e{Errno(uri.path)};
    close(fd);
    return e;
  }
  return fd;
}

}  // namespace

Result<ListenUri> ListenUri::Parse(std::string_view text) {
  ListenUri uri;
  if (text.starts_with("unix://")) {
    uri.kind = Kind::kUnix;
    uri.path = std::string(text.substr(7));
    if (uri.path.empty()) return Bad(text, "no path");
    if (uri.path.size() >= sizeof(sockaddr_un{}.sun_path)) return Bad(text, "path too long");
    if (uri.path.find('\0') != std::string::npos) return Bad(text, "NUL in the path");
    return uri;
  }
  if (!text.starts_with("tcp://")) return Bad(text, "expected tcp://HOST:PORT or unix://PATH");
  std::string_view rest = text.substr(6);
  const size_t colon = rest.rfind(':');
  if (colon == std::string_view::npos) return Bad(text, "no :PORT");
  std::string_view host = rest.substr(0, colon), port = rest.substr(colon + 1);
  if (host.starts_with('[') && host.ends_with(']')) host = host.substr(1, host.size() - 2);
  if (host.empty()) return Bad(text, "no host");
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), uri.port);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || uri.port < 0 ||
      uri.port > 65535) {
    return Bad(text, "port '" + std::string(port) + "': expected 0 to 65535");
  }
  uri.host = std::string(host);
  return uri;
}

Result<int> Listen(const ListenUri& uri, std::string* bound) {
  if (uri.kind == ListenUri::Kind::kTcp) return ListenTcp(uri, bound);
  *bound = "unix://" + uri.path;
  return ListenUnix(uri);
}

}  // namespace earshot::wyoming
