#include "base/read_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace earshot {

Result<uint64_t> RegularFileSize(const std::string& path, const std::string& what) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return Error{path + ": cannot open: " + std::strerror(errno)};
  if (S_ISDIR(st.st_mode)) return Error{path + ": is a directory, not " + what};
  if (!S_ISREG(st.st_mode)) return Error{path + ": not a regular file (a device or FIFO?)"};
  return static_cast<uint64_t>(st.st_size);
}

Result<std::string> ReadWholeFile(const std::string& path, size_t max_bytes,
                                  const std::string& what) {
  Result<uint64_t> size = RegularFileSize(path, what);
  if (!size.ok()) return size.error();
  if (*size > max_bytes) {
    return Error{path + ": " + std::to_string(*size) + " bytes, more than " + what +
                 " may have (" + std::to_string(max_bytes) + ")"};
  }
  // O_NONBLOCK: should the path have become a FIFO since, opening it must not hang.
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return Error{path + ": cannot open: " + std::strerror(errno)};
  std::string bytes(static_cast<size_t>(*size), '\0');
  size_t done = 0;
  int read_errno = 0;
  while (done < bytes.size()) {
    const ssize_t n = read(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) read_errno = errno;
    if (n <= 0) break;  // an error, or the file shrank while read: what is there
    done += static_cast<size_t>(n);
  }
  close(fd);
  if (read_errno != 0) return Error{path + ": read failed: " + std::strerror(read_errno)};
  bytes.resize(done);
  return bytes;
}

}  // namespace earshot
