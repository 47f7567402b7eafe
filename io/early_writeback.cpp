#include "io/early_writeback.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gatemap::io {

EarlyWriteback::EarlyWriteback(const std::string& path) {
  // Only a regular file is opened (a FIFO or a device is never opened a second time).
  struct stat st {};
  if (path.empty() || path == "-" || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd >= 0 && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    fd_ = fd;
  } else if (fd >= 0) {
    ::close(fd);
  }
}

EarlyWriteback::~EarlyWriteback() {
  if (fd_ >= 0) ::close(fd_);
}

void EarlyWriteback::wrote() {
  struct stat st {};
  if (fd_ < 0 || ::fstat(fd_, &st) != 0 || st.st_size - started_ < kStep) return;
  // A hint: where the file system cannot do it, the close's fdatasync writes it all.
  static_cast<void>(::sync_file_range(fd_, started_, st.st_size - started_, SYNC_FILE_RANGE_WRITE));
  started_ = st.st_size;
}

}  // namespace gatemap::io
