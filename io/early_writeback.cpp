#include "io/early_writeback.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <system_error>

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
  if (fd_ < 0) return;
  try {
    thread_ = std::thread([this] { run(); });
  } catch (const std::system_error&) {  // no thread (a tight ulimit): wrote() asks itself
  }
}

EarlyWriteback::~EarlyWriteback() {
  if (thread_.joinable()) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
  if (fd_ >= 0) ::close(fd_);
}

void EarlyWriteback::wrote() {
  if (fd_ < 0) return;
  if (!thread_.joinable()) return start_writeback();
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    pending_ = true;
  }
  wake_.notify_one();
}

void EarlyWriteback::start_writeback() {
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || st.st_size - started_ < kStep) return;
  // A hint: where the file system cannot do it, the close's fdatasync writes it all.
  static_cast<void>(::sync_file_range(fd_, started_, st.st_size - started_, SYNC_FILE_RANGE_WRITE));
  started_ = st.st_size;
}

// Whatever is left when the writer is done goes with the close's fdatasync.
void EarlyWriteback::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return pending_ || stopping_; });
    if (stopping_) return;
    pending_ = false;
    lock.unlock();
    start_writeback();
    lock.lock();
  }
}

}  // namespace gatemap::io
