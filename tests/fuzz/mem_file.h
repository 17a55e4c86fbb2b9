// MemFile: a fuzz input as a file, for the loaders that take a path (models, audio, configs). The
// bytes go to an anonymous memory file (memfd_create) named by /proc/self/fd/N: nothing touches
// the disk, and the file disappears with the descriptor.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace earshot::fuzz {

class MemFile {
 public:
  MemFile(const uint8_t* data, size_t size) : fd_(memfd_create("earshot-fuzz", 0)) {
    if (fd_ < 0) std::abort();  // the harness itself failed: not a finding
    for (size_t done = 0; done < size;) {
      const ssize_t n = write(fd_, data + done, size - done);
      if (n <= 0) std::abort();
      done += static_cast<size_t>(n);
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~MemFile() { close(fd_); }
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;

  const std::string& path() const { return path_; }

 private:
  int fd_;
  std::string path_;
};

}  // namespace earshot::fuzz
