#include "config/read_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace earshot::config {
namespace {

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

Result<std::string> ReadWholeFile(const std::string& path, size_t max_bytes,
                                  const std::string& what) {
  // O_NONBLOCK: opening a FIFO without a writer must not hang; it is refused below.
  const Fd fd(open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0) return Error{path + ": cannot open: " + std::strerror(errno)};
  struct stat st {};
  if (fstat(fd.get(), &st) != 0) return Error{path + ": " + std::strerror(errno)};
  if (S_ISDIR(st.st_mode)) return Error{path + ": is a directory, not a " + what};
  if (!S_ISREG(st.st_mode)) return Error{path + ": not a regular file (a device or FIFO?)"};
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    return Error{path + ": " + std::to_string(st.st_size) + " bytes, more than a " + what +
                 " may have (" + std::to_string(max_bytes) + ")"};
  }
  std::string bytes(static_cast<size_t>(st.st_size), '\0');
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = read(fd.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{path + ": read failed: " + std::strerror(errno)};
    if (n == 0) break;  // shrank while read: what is there
    done += static_cast<size_t>(n);
  }
  bytes.resize(done);
  return bytes;
}

}  // namespace earshot::config
