#include "io/reads/input_stream.hpp"

#include <fcntl.h>
#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/error.hpp"
#include "common/signal_cleanup.hpp"

namespace gatemap::io {

namespace {

constexpr size_t kChunk = size_t{1} << 20;  // decompressed bytes handed over at a time
constexpr size_t kQueued = 6;               // chunks read ahead of the consumer
// Chunks a gzip member's one inflating thread may read ahead (set_gzip_read_ahead).
std::atomic<size_t> g_queued_inflate{kQueued};
constexpr size_t kRawBlock = size_t{1} << 20;
constexpr size_t kBgzfMaxData = 65536;  // a BGZF block's most uncompressed bytes
// A mapped file's bytes populated ahead of its reader (~50 ms of cutting), in steps: an
// eighth of a small file (a 65 MB FASTQ: 8 MB). What is mapped counts in the process's
// RSS: 256 MB ahead made map's peak 0.6 GB larger; 32 MB ahead of each of two 65 MB
// files made correct's (2 cores) 188 MB instead of 137.
constexpr size_t kMappedLeadMax = size_t{32} << 20, kMappedLeadMin = size_t{4} << 20;
constexpr size_t kPopulateStep = size_t{4} << 20;
size_t mapped_lead(size_t file_size) { return std::clamp(file_size / 8, kMappedLeadMin, kMappedLeadMax); }
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22  // Linux 5.14; older kernels refuse it (EINVAL)
#endif

// The empty block that ends every BGZF file (SAM/BAM spec, 4.1.2).
constexpr unsigned char kBgzfEof[28] = {0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, 0x42, 0x43,
                                        2,    0,    0x1b, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0};

bool is_gzip(const unsigned char* p, size_t n) { return n >= 2 && p[0] == 0x1f && p[1] == 0x8b; }
// A gzip header with an extra field whose first subfield is BGZF's "BC".
bool is_bgzf(const unsigned char* p, size_t n) {
  return n >= 18 && is_gzip(p, n) && (p[3] & 4) && p[12] == 'B' && p[13] == 'C' && p[14] == 2 && p[15] == 0;
}
uint32_t le16(const unsigned char* p) { return p[0] | uint32_t{p[1]} << 8; }
uint32_t le32(const unsigned char* p) { return le16(p) | le16(p + 2) << 16; }

// A BGZF block's size from its header (SAM/BAM spec 4.1: XLEN 6, subfield BC, BSIZE).
size_t bgzf_block_size(const unsigned char* p) { return le16(p + 16) + 1; }
constexpr size_t kBgzfHeader = 18, kBgzfTrailer = 8;

std::string inflate_error(int code) {
  switch (code) {
    case ISAL_INCORRECT_CHECKSUM:
      return "CRC mismatch";
    case ISAL_INVALID_WRAPPER:
      return "bad gzip header";
    case ISAL_UNSUPPORTED_METHOD:
      return "unsupported compression method";
    default:
      return "invalid deflate data (error " + std::to_string(code) + ")";
  }
}

}  // namespace

// State shared by the consumer and the read-ahead thread.
struct InputStream::Shared {
  std::string path;
  int threads = 1;  // BGZF blocks inflated at once
  int fd = -1;
  bool own_fd = false;
  std::mutex m;
  std::condition_variable cv;
  std::deque<std::string> ready;  // decompressed chunks in file order
  std::vector<std::string> spare;  // consumed chunks, reused for their capacity
  bool finished = false;          // the thread has pushed its last chunk
  std::exception_ptr error;       // why it stopped early
  std::atomic<bool> stop{false};
  bool inflating = false;  // one gzip member after another: g_queued_inflate applies
  std::thread thread;
  std::string current;  // the consumer's chunk
  size_t current_pos = 0;
  std::string_view mapped;  // a plain regular file's bytes, mapped (no copies)
  std::unique_ptr<ExplainedMapping> explained;  // a bus error there names the file
  size_t released = 0;      // mapped pages before this are dropped from the process
  // For progress, read on any thread: the file's size (0: not a regular file) and how much
  // of it the stream has read (compressed bytes), or its reader released (mapped).
  uint64_t file_size = 0;
  std::atomic<uint64_t> taken{0};

  // A mapped file's pages faulted in on the stream's thread, up to kMappedLead bytes past
  // what its reader released: the reader (one thread per file, which a busy host can hold
  // up) then finds them mapped, and a file not in the page cache is read meanwhile.
  void populate_ahead() {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    char* const data = const_cast<char*>(mapped.data());
    for (size_t done = 0; done < mapped.size();) {
      {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [&] { return stop || done < released + mapped_lead(mapped.size()); });
        if (stop) return;
      }
      const size_t n = std::min(kPopulateStep, mapped.size() - done);
      if (madvise(data + done, n, MADV_POPULATE_READ) != 0 && errno == EINVAL) {  // a kernel before 5.14: touch each page
        for (size_t at = done; at < done + n; at += page) static_cast<void>(*static_cast<volatile const char*>(data + at));
      }
      done += n;
    }
  }

  // Raw bytes from the file: waits for a pipe in short polls so that a stop is seen.
  size_t read_raw(unsigned char* buf, size_t cap) {
    for (;;) {
      if (stop) return 0;
      pollfd p{fd, POLLIN, 0};
      const int ready_fds = poll(&p, 1, 100);
      if (ready_fds == 0) continue;
      if (ready_fds < 0 && errno == EINTR) continue;
      const ssize_t n = ::read(fd, buf, cap);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n < 0) throw IoError("cannot read '" + path + "': " + std::strerror(errno));
      taken += static_cast<uint64_t>(n);
      return static_cast<size_t>(n);
    }
  }

  // Hands a full chunk to the consumer (waits while the most it may read ahead are
  // unread); false on stop.
  bool push(std::string& chunk) {
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return ready.size() < (inflating ? g_queued_inflate.load() : kQueued) || stop; });
    if (stop) return false;
    ready.push_back(std::move(chunk));
    chunk.clear();
    if (!spare.empty()) {
      chunk = std::move(spare.back());
      spare.pop_back();
    }
    cv.notify_all();
    return true;
  }

  std::string new_chunk() {
    std::string chunk;
    chunk.reserve(kChunk);
    return chunk;
  }

  // Plain text: the file's bytes as they are.
  void copy_plain(std::vector<unsigned char>& raw, size_t have) {
    std::string chunk = new_chunk();
    for (;;) {
      chunk.append(reinterpret_cast<const char*>(raw.data()), have);
      if (chunk.size() >= kChunk / 2 && !push(chunk)) return;
      have = read_raw(raw.data(), raw.size());
      if (have == 0) break;
    }
    if (!chunk.empty()) push(chunk);
  }

  // gzip members one after another (BGZF is such a series), inflated by igzip; the CRC and
  // length of each are checked. `have` bytes of raw are read already. A file that starts
  // as BGZF (`bgzf_file`: its first member) must end with BGZF's end-of-file block, as
  // htslib requires.
  void inflate_members(std::vector<unsigned char>& raw, size_t have, bool bgzf_file) {
    const bool bgzf = bgzf_file;
    {
      std::lock_guard<std::mutex> lock(m);
      inflating = true;
    }
    unsigned char tail[28];  // the last bytes of the compressed input (the BGZF EOF check)
    size_t tail_len = 0;
    const auto remember_tail = [&](const unsigned char* p, size_t n) {
      if (n >= sizeof tail) {
        std::memcpy(tail, p + n - sizeof tail, sizeof tail);
        tail_len = sizeof tail;
        return;
      }
      const size_t keep = std::min(tail_len, sizeof tail - n);
      std::memmove(tail, tail + tail_len - keep, keep);
      std::memcpy(tail + keep, p, n);
      tail_len = keep + n;
    };
    remember_tail(raw.data(), have);
    inflate_state state;
    isal_inflate_init(&state);
    state.crc_flag = ISAL_GZIP;
    state.next_in = raw.data();
    state.avail_in = static_cast<uint32_t>(have);
    std::string chunk = new_chunk();
    int64_t member = 1;
    for (;;) {
      if (state.avail_in == 0) {
        have = read_raw(raw.data(), raw.size());
        if (stop) return;
        if (have == 0) {
          if (state.block_state != ISAL_BLOCK_FINISH) {
            throw FormatError("'" + path + "' ends inside gzip member " + std::to_string(member) +
                              ": the file is truncated (an interrupted copy?)");
          }
          break;
        }
        remember_tail(raw.data(), have);
        state.next_in = raw.data();
        state.avail_in = static_cast<uint32_t>(have);
      }
      if (state.block_state == ISAL_BLOCK_FINISH) {  // another member follows
        if (state.avail_in >= 2 && !is_gzip(state.next_in, state.avail_in)) {
          throw FormatError("'" + path + "': data after gzip member " + std::to_string(member) +
                            " is not gzip (a damaged file?)");
        }
        const uint8_t* next_in = state.next_in;
        const uint32_t avail_in = state.avail_in;
        isal_inflate_reset(&state);
        state.crc_flag = ISAL_GZIP;
        state.next_in = const_cast<uint8_t*>(next_in);
        state.avail_in = avail_in;
        ++member;
      }
      const size_t before = chunk.size();
      chunk.resize(kChunk);
      state.next_out = reinterpret_cast<uint8_t*>(chunk.data() + before);
      state.avail_out = static_cast<uint32_t>(kChunk - before);
      const int ret = isal_inflate(&state);
      chunk.resize(kChunk - state.avail_out);
      if (ret < 0) {
        throw FormatError("'" + path + "' gzip member " + std::to_string(member) + ": " + inflate_error(ret) +
                          " (a damaged file?)");
      }
      if (chunk.size() == kChunk && !push(chunk)) return;
      if (chunk.capacity() < kChunk) chunk.reserve(kChunk);
    }
    if (bgzf && (tail_len < sizeof tail || std::memcmp(tail, kBgzfEof, sizeof tail) != 0)) {
      throw FormatError("'" + path + "' has no BGZF end-of-file marker: the file is truncated (an interrupted copy?)");
    }
    if (!chunk.empty()) push(chunk);
  }

  // BGZF: whole blocks inflated in parallel (libdeflate) on `threads` threads, a chunk's
  // worth at a time; each block's CRC and length checked. A member that is not BGZF hands
  // the rest of the file to inflate_members.
  void inflate_bgzf(std::vector<unsigned char>& raw, size_t have) {
    std::vector<unsigned char> pending(raw.begin(), raw.begin() + static_cast<std::ptrdiff_t>(have));
    bool at_end = false, last_was_eof_block = false;
    int64_t block_no = 0;
    std::string chunk = new_chunk();
    struct Block {
      size_t at, size, out_at, out_size;
    };
    std::vector<Block> blocks;
    for (;;) {
      while (!at_end && pending.size() < kRawBlock * 4) {  // enough raw input for a chunk
        const size_t n = read_raw(raw.data(), raw.size());
        if (stop) return;
        if (n == 0) at_end = true;
        pending.insert(pending.end(), raw.begin(), raw.begin() + static_cast<std::ptrdiff_t>(n));
      }
      // The whole blocks in `pending`, up to a chunk of output.
      blocks.clear();
      size_t at = 0, out = 0;
      while (at + kBgzfHeader <= pending.size() && out < kChunk - kBgzfMaxData) {
        if (!is_bgzf(pending.data() + at, pending.size() - at)) break;
        const size_t size = bgzf_block_size(pending.data() + at);
        if (size < kBgzfHeader + kBgzfTrailer || at + size > pending.size()) break;
        const size_t out_size = le32(pending.data() + at + size - 4);
        if (out_size > kBgzfMaxData) {
          throw FormatError("'" + path + "' BGZF block " + std::to_string(block_no + 1 + static_cast<int64_t>(blocks.size())) +
                            ": bad length (a damaged file?)");
        }
        blocks.push_back({at, size, out, out_size});
        at += size, out += out_size;
      }
      if (blocks.empty()) {
        if (pending.empty()) break;
        if (at_end && is_bgzf(pending.data(), pending.size())) {
          throw FormatError("'" + path + "' ends inside BGZF block " + std::to_string(block_no + 1) +
                            ": the file is truncated (an interrupted copy?)");
        }
        // Not BGZF from here (another kind of gzip member, or damage): inflated in order.
        if (!chunk.empty() && !push(chunk)) return;
        raw.assign(pending.begin(), pending.end());
        raw.resize(std::max(raw.size(), kRawBlock));
        return inflate_members(raw, pending.size(), true);
      }
      inflate_blocks(pending, blocks, chunk, block_no);
      block_no += static_cast<int64_t>(blocks.size());
      const Block& last = blocks.back();
      last_was_eof_block = last.size == sizeof kBgzfEof && std::memcmp(pending.data() + last.at, kBgzfEof, sizeof kBgzfEof) == 0;
      pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(last.at + last.size));
      if (chunk.size() >= kChunk / 2 && !push(chunk)) return;
    }
    if (!last_was_eof_block) {
      throw FormatError("'" + path + "' has no BGZF end-of-file marker: the file is truncated (an interrupted copy?)");
    }
    if (!chunk.empty()) push(chunk);
  }

  // Inflates the blocks into the end of `chunk`, each on one of `threads` threads; the
  // first damaged block (in file order) is the error.
  template <class Blocks>
  void inflate_blocks(const std::vector<unsigned char>& pending, const Blocks& blocks, std::string& chunk,
                      int64_t block_no) {
    const size_t base = chunk.size();
    chunk.resize(base + blocks.back().out_at + blocks.back().out_size);
    std::vector<char> bad(blocks.size(), 0);
#pragma omp parallel num_threads(std::min<int>(threads, static_cast<int>(blocks.size())))
    {
      libdeflate_decompressor* d = libdeflate_alloc_decompressor();
#pragma omp for schedule(dynamic, 4)
      for (size_t i = 0; i < blocks.size(); ++i) {
        const auto& b = blocks[i];
        const unsigned char* in = pending.data() + b.at;
        const size_t header = 12 + le16(in + 10);  // XLEN
        char* to = chunk.data() + base + b.out_at;
        size_t got = 0;
        bad[i] = !d || header + kBgzfTrailer > b.size ||
                 libdeflate_deflate_decompress(d, in + header, b.size - header - kBgzfTrailer, to, b.out_size, &got) !=
                     LIBDEFLATE_SUCCESS ||
                 got != b.out_size || libdeflate_crc32(0, to, got) != le32(in + b.size - 8);
      }
      if (d) libdeflate_free_decompressor(d);
    }
    for (size_t i = 0; i < blocks.size(); ++i) {
      if (bad[i]) {
        throw FormatError("'" + path + "' BGZF block " + std::to_string(block_no + 1 + static_cast<int64_t>(i)) +
                          ": invalid deflate data or CRC mismatch (a damaged file?)");
      }
    }
  }

  void run() {
    try {
      std::vector<unsigned char> raw(kRawBlock);
      size_t have = 0;  // the first bytes, enough to tell the format
      while (have < 18) {
        const size_t n = read_raw(raw.data() + have, raw.size() - have);
        if (n == 0) break;
        have += n;
      }
      if (is_bgzf(raw.data(), have) && threads > 1) {
        inflate_bgzf(raw, have);
      } else if (is_gzip(raw.data(), have)) {
        inflate_members(raw, have, is_bgzf(raw.data(), have));
      } else if (have > 0) {
        copy_plain(raw, have);
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(m);
      error = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(m);
    finished = true;
    cv.notify_all();
  }
};

namespace {

// A regular file that does not start as gzip, mapped whole; empty otherwise (or where
// mapping fails: then it is read). Reading it cost two copies of every byte besides the
// kernel's: cutting 2 M pairs from the mapping takes 0.4 of the time (2 cores). A file
// truncated while mapped ends the process (SIGBUS), naming the file (ExplainedMapping).
std::string_view map_plain_file(int fd) {
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 2) return {};
  const auto size = static_cast<size_t>(st.st_size);
  void* p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) return {};
  const auto* bytes = static_cast<const unsigned char*>(p);
  if (is_gzip(bytes, size)) {
    munmap(p, size);
    return {};
  }
  madvise(p, size, MADV_SEQUENTIAL);
  return {static_cast<const char*>(p), size};
}

}  // namespace

InputStream::InputStream(const std::string& path, int threads) : shared_(std::make_unique<Shared>()) {
  Shared& s = *shared_;
  s.path = path;
  s.threads = std::max(1, threads);
  if (path == "-") {
    s.fd = STDIN_FILENO;
  } else {
    s.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (s.fd < 0) throw IoError("cannot open '" + path + "': " + std::strerror(errno));
    s.own_fd = true;
    struct stat st {};
    if (fstat(s.fd, &st) == 0 && S_ISREG(st.st_mode)) s.file_size = static_cast<uint64_t>(st.st_size);
    s.mapped = map_plain_file(s.fd);
    if (s.mapped.empty()) {
      posix_fadvise(s.fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    } else {
      s.explained = std::make_unique<ExplainedMapping>(s.mapped.data(), s.mapped.size(), path);
    }
  }
  try {
    s.thread = s.mapped.empty() ? std::thread([&s] { s.run(); }) : std::thread([&s] { s.populate_ahead(); });
  } catch (const std::system_error&) {
    if (!s.mapped.empty()) munmap(const_cast<char*>(s.mapped.data()), s.mapped.size());
    if (s.own_fd) ::close(s.fd);
    throw IoError("cannot start a thread to read '" + path + "' (out of memory?)");
  }
}

InputStream::~InputStream() {
  Shared& s = *shared_;
  {
    std::lock_guard<std::mutex> lock(s.m);
    s.stop = true;
  }
  s.cv.notify_all();
  if (s.thread.joinable()) s.thread.join();
  if (!s.mapped.empty()) munmap(const_cast<char*>(s.mapped.data()), s.mapped.size());
  if (s.own_fd) ::close(s.fd);
}

std::string_view InputStream::mapped() const { return shared_->mapped; }

size_t InputStream::release_step() const { return mapped_lead(shared_->mapped.size()) / 2; }

void InputStream::release_mapped(size_t before) {
  Shared& s = *shared_;
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  s.taken = std::max<uint64_t>(s.taken, std::min(before, s.mapped.size()));  // its reader's place, for progress
  before = std::min(before, s.mapped.size()) / page * page;
  if (before <= s.released) return;
  // The pages stay in the page cache; touching them again would map them back.
  madvise(const_cast<char*>(s.mapped.data()) + s.released, before - s.released, MADV_DONTNEED);
  {
    const std::lock_guard<std::mutex> lock(s.m);
    s.released = before;
  }
  s.cv.notify_all();
}

double InputStream::fraction_read() const {
  const Shared& s = *shared_;
  return s.file_size > 0 ? std::min(1.0, static_cast<double>(s.taken.load()) / static_cast<double>(s.file_size)) : -1;
}

const std::string& InputStream::path() const { return shared_->path; }

void InputStream::set_gzip_read_ahead(size_t bytes) { g_queued_inflate = std::max(kQueued, bytes / kChunk); }

size_t InputStream::read(char* out, size_t n) {
  Shared& s = *shared_;
  if (!s.mapped.empty()) {
    const size_t take = std::min(n, s.mapped.size() - s.current_pos);
    std::memcpy(out, s.mapped.data() + s.current_pos, take);
    s.current_pos += take;
    return take;
  }
  size_t copied = 0;
  while (copied < n) {
    if (s.current_pos == s.current.size()) {
      std::unique_lock<std::mutex> lock(s.m);
      s.cv.wait(lock, [&] { return !s.ready.empty() || s.finished; });
      if (s.ready.empty()) {
        if (s.error) std::rethrow_exception(s.error);
        break;
      }
      s.current.clear();
      s.spare.push_back(std::move(s.current));
      s.current = std::move(s.ready.front());
      s.ready.pop_front();
      s.current_pos = 0;
      s.cv.notify_all();
    }
    const size_t take = std::min(n - copied, s.current.size() - s.current_pos);
    std::memcpy(out + copied, s.current.data() + s.current_pos, take);
    s.current_pos += take;
    copied += take;
  }
  return copied;
}

}  // namespace gatemap::io
