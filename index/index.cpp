// Index queries and the on-disk format (save / mmap load with checksums).
#include "index/index.hpp"

#include <fcntl.h>
#include <omp.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/error.hpp"
#include "common/log.hpp"
#include "common/signal_cleanup.hpp"
#include "index/format.hpp"
#include "io/output_file.hpp"

namespace gatemap::index {

uint64_t Index::key_at(int64_t pos) const {
  const int64_t w = pos >> 6;
  const int s = static_cast<int>(pos & 63);
  const int64_t words = words64();
  const auto bits = [&](const uint64_t* plane) {
    uint64_t v = plane[w] >> s;
    if (s + k_ > 64 && w + 1 < words) v |= plane[w + 1] << (64 - s);
    return v & ((uint64_t{1} << k_) - 1);
  };
  return bits(hi_) | (bits(lo_) << k_);
}

uint64_t Index::key_of(const uint8_t* codes, int k) {
  uint64_t h = 0, l = 0;
  for (int i = 0; i < k; ++i) {
    h |= static_cast<uint64_t>((codes[i] >> 1) & 1) << i;
    l |= static_cast<uint64_t>(codes[i] & 1) << i;
  }
  return h | (l << k);
}

void Index::verify_checksums() const {
  const auto* base = static_cast<const unsigned char*>(mapping_.get());
  for (size_t i = 0; i < unchecked_.size(); ++i) {
    const SectionSum& s = unchecked_[i];
    if (detail::checksum(base + s.offset, s.bytes) != s.checksum) {
      throw FormatError("index '" + path_ + "': section " + std::to_string(i) + " checksum mismatch (corrupted file)");
    }
  }
}

KmerHits Index::lookup(uint64_t key) const {
  const int shift = 2 * k_ - bucket_bits_;
  const uint64_t b = key >> shift;
  const uint32_t* first = positions_ + bucket_offsets_[b];
  const uint32_t* last = positions_ + bucket_offsets_[b + 1];
  if (shift != 0) {
    first = std::lower_bound(first, last, key, [&](uint32_t p, uint64_t kk) { return key_at(p) < kk; });
    last = std::upper_bound(first, last, key, [&](uint64_t kk, uint32_t p) { return kk < key_at(p); });
  }
  KmerHits hits;
  hits.pos = first;
  hits.count = static_cast<uint32_t>(last - first);
  hits.capped = hits.count > max_occ_;
  return hits;
}

void Index::prefetch(uint64_t key, int stage) const {
  const int shift = 2 * k_ - bucket_bits_;
  const uint64_t b = key >> shift;
  if (stage == 0) {
    __builtin_prefetch(bucket_offsets_ + b);
    return;
  }
  const uint32_t first = bucket_offsets_[b], last = bucket_offsets_[b + 1];
  if (stage == 1) {
    __builtin_prefetch(positions_ + first);
    return;
  }
  if (shift == 0) return;  // no binary search: positions only
  constexpr uint32_t kMaxPrefetched = 8;  // a typical bucket; larger ones are searched as they come
  for (uint32_t i = first; i < last && i < first + kMaxPrefetched; ++i) {
    const int64_t p = positions_[i];
    __builtin_prefetch(hi_ + (p >> 6));
    __builtin_prefetch(lo_ + (p >> 6));
  }
}

bool Index::has_n(int64_t begin, int64_t end) const {
  const int64_t* it = std::upper_bound(n_end_, n_end_ + n_runs_, begin);  // first run ending after begin
  return it != n_end_ + n_runs_ && n_begin_[it - n_end_] < end;
}

int32_t Index::contig_of(int64_t pos) const {
  const auto it = std::upper_bound(contigs_.begin(), contigs_.end(), pos,
                                   [](int64_t p, const Contig& c) { return p < c.begin; });
  return static_cast<int32_t>(it - contigs_.begin()) - 1;
}

std::string Index::sequence(int64_t begin, int64_t end) const {
  std::string out(static_cast<size_t>(std::max<int64_t>(0, end - begin)), 'N');
  for (int64_t p = begin; p < end; ++p) out[p - begin] = kCodeToAscii[base(p)];
  const int64_t* it = std::upper_bound(n_end_, n_end_ + n_runs_, begin);
  for (; it != n_end_ + n_runs_ && n_begin_[it - n_end_] < end; ++it) {
    const int64_t a = std::max(begin, n_begin_[it - n_end_]), b = std::min(end, *it);
    for (int64_t p = a; p < b; ++p) out[p - begin] = 'N';
  }
  return out;
}

// ---- file format ----------------------------------------------------------------------
namespace {

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdULL;
}
uint64_t checksum_serial(const unsigned char* p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ULL ^ n;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t v;
    std::memcpy(&v, p + i, 8);
    h = mix(h, v);
  }
  uint64_t tail = 0;
  if (n > i) std::memcpy(&tail, p + i, n - i);  // (an empty section may have no pointer)
  return mix(h, tail);
}
}  // namespace

namespace detail {
uint64_t checksum(const void* data, size_t n) {
  constexpr size_t kChunk = size_t{1} << 20;
  const auto* p = static_cast<const unsigned char*>(data);
  const int64_t chunks = static_cast<int64_t>((n + kChunk - 1) / kChunk);
  std::vector<uint64_t> parts(chunks);
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < chunks; ++c) {
    parts[c] = checksum_serial(p + c * kChunk, std::min(kChunk, n - c * kChunk));
  }
  return checksum_serial(reinterpret_cast<const unsigned char*>(parts.data()), parts.size() * 8) ^ n;
}

}  // namespace detail

namespace {
using namespace detail;

struct Writer {
  std::FILE* fp;
  const std::string& path;
  uint64_t at = 0;
  void put(const void* data, size_t n) {
    if (n && std::fwrite(data, 1, n, fp) != n) {
      throw IoError("write to '" + path + "' failed: " + std::strerror(errno));
    }
    at += n;
  }
  void pad() {
    static const char zeros[8] = {};
    put(zeros, (8 - at % 8) % 8);
  }
};

}  // namespace

IndexFile::IndexFile(const std::string& path) : path_(path), out_(path) {
  fp_ = std::fopen(out_.write_path().c_str(), "wb");
  if (!fp_) throw IoError("cannot write '" + path + "': " + std::strerror(errno));
}

IndexFile::~IndexFile() {
  if (fp_) std::fclose(fp_);
}

void save_index(const Index& idx, const std::string& path) { IndexFile(path).save(idx); }

void IndexFile::save(const Index& idx) {
  if (!fp_) throw Error("internal: index file '" + path_ + "' saved twice");
  std::string names;
  std::vector<uint64_t> lengths;
  for (const auto& c : idx.contigs_) {
    names += c.name;
    names += '\n';
    lengths.push_back(static_cast<uint64_t>(c.length));
  }
  const size_t nbuckets = (size_t{1} << idx.bucket_bits_) + 1;
  const void* data[kSections] = {names.data(),  lengths.data(), idx.n_begin_,         idx.n_end_,
                                 idx.hi_,       idx.lo_,        idx.bucket_offsets_, idx.positions_};
  const uint64_t bytes[kSections] = {names.size(),
                                     lengths.size() * 8,
                                     static_cast<uint64_t>(idx.n_runs_) * 8,
                                     static_cast<uint64_t>(idx.n_runs_) * 8,
                                     static_cast<uint64_t>(idx.words64()) * 8,
                                     static_cast<uint64_t>(idx.words64()) * 8,
                                     nbuckets * 4,
                                     static_cast<uint64_t>(idx.stats_.positions) * 4};
  FileHeader h{};
  std::memcpy(h.magic, kMagic, 8);
  h.version = kVersion;
  h.k = idx.k_;
  h.stride = idx.stride_;
  h.bucket_bits = idx.bucket_bits_;
  h.max_occ = idx.max_occ_;
  h.n_contigs = static_cast<uint32_t>(idx.contigs_.size());
  h.length = idx.length_;
  h.n_runs = idx.n_runs_;
  const IndexStats& s = idx.stats_;
  const int64_t stats[7] = {s.positions, s.distinct_kmers, s.capped_kmers, s.capped_positions,
                            s.n_bases,   s.iupac_to_n,     s.lowercase};
  std::memcpy(h.stats, stats, sizeof(stats));
  uint64_t at = (sizeof(FileHeader) + 7) / 8 * 8;
  for (int i = 0; i < kSections; ++i) {
    h.sections[i] = {at, bytes[i], checksum(data[i], bytes[i])};
    at += (bytes[i] + 7) / 8 * 8;
  }
  h.header_checksum = checksum(&h, offsetof(FileHeader, header_checksum));

  Writer w{fp_, path_};
  w.put(&h, sizeof(h));
  w.pad();
  for (int i = 0; i < kSections; ++i) {
    w.put(data[i], bytes[i]);
    w.pad();
  }
  const int closed = std::fclose(fp_);
  fp_ = nullptr;
  if (closed != 0) throw IoError("closing '" + path_ + "' failed (disk full?)");
  out_.commit(io::OutputFile::Replace::remove_first);  // not synced: see OutputFile::commit
}

namespace {

// The header's fields must describe its sections (the checksums only show that the
// bytes are the ones written): k, bucket bits and section sizes agree, bucket offsets
// ascend, positions and N runs lie inside the reference. A crafted or mismatched file
// is then an error instead of reads out of bounds.
template <class Bad>
void check_layout(const FileHeader& h, const unsigned char* base, const Bad& bad) {
  const auto bytes = [&](SectionId id) { return h.sections[id].bytes; };
  if (h.k < 8 || h.k > 16) throw bad("k = " + std::to_string(h.k) + " is out of range (8..16)");
  if (h.stride < 1 || h.stride > 1024) throw bad("stride " + std::to_string(h.stride) + " is out of range");
  if (h.bucket_bits < 1 || h.bucket_bits > 2 * h.k || h.bucket_bits > 32) {
    throw bad(std::to_string(h.bucket_bits) + " bucket bits do not fit k = " + std::to_string(h.k));
  }
  const uint64_t words = (h.length + 63) / 64, nbuckets = uint64_t{1} << h.bucket_bits;
  if (h.length == 0 || h.length > (uint64_t{1} << 32) || bytes(kHi) != words * 8 || bytes(kLo) != words * 8 ||
      bytes(kLengths) != uint64_t{h.n_contigs} * 8 || bytes(kNBegin) != h.n_runs * 8 || bytes(kNEnd) != h.n_runs * 8 ||
      bytes(kOffsets) != (nbuckets + 1) * 4 || bytes(kPositions) % 4 != 0) {
    throw bad("its header does not describe its sections (damaged or from another program)");
  }
  const auto* offsets = reinterpret_cast<const uint32_t*>(base + h.sections[kOffsets].offset);
  const auto* positions = reinterpret_cast<const uint32_t*>(base + h.sections[kPositions].offset);
  if (offsets[0] != 0 || uint64_t{offsets[nbuckets]} * 4 != bytes(kPositions)) throw bad("bucket table is damaged");
  bool ok = true;
#pragma omp parallel for schedule(static) reduction(&& : ok)
  for (int64_t b = 0; b < static_cast<int64_t>(nbuckets); ++b) ok = ok && offsets[b] <= offsets[b + 1];
  const int64_t n_pos = offsets[nbuckets], k = h.k;
  const uint64_t last_start = h.length >= static_cast<uint64_t>(k) ? h.length - k : 0;
#pragma omp parallel for schedule(static) reduction(&& : ok)
  for (int64_t i = 0; i < n_pos; ++i) ok = ok && positions[i] <= last_start;
  if (!ok) throw bad("bucket table is damaged (positions out of order or outside the reference)");
  const auto* n_begin = reinterpret_cast<const int64_t*>(base + h.sections[kNBegin].offset);
  const auto* n_end = reinterpret_cast<const int64_t*>(base + h.sections[kNEnd].offset);
  for (uint64_t i = 0; i < h.n_runs; ++i) {
    if (n_begin[i] < (i ? n_end[i - 1] : 0) || n_end[i] <= n_begin[i] || n_end[i] > static_cast<int64_t>(h.length)) {
      throw bad("N-run table is damaged");
    }
  }
}

}  // namespace

std::unique_ptr<Index> load_index(const std::string& path, Checksums when) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) throw IoError("cannot open index '" + path + "': " + std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    ::close(fd);
    throw IoError("cannot stat '" + path + "'");
  }
  const size_t size = static_cast<size_t>(st.st_size);
  const auto bad = [&](const std::string& why) { return FormatError("index '" + path + "': " + why); };
  // The magic first, before the whole file is mapped (reads given in the index's place
  // can be gigabytes).
  char head[8] = {};
  const bool whole_head = ::pread(fd, head, sizeof head, 0) == static_cast<ssize_t>(sizeof head);
  if (!whole_head || std::memcmp(head, kMagic, 8) != 0) {
    ::close(fd);
    const bool reads = head[0] == '@' || head[0] == '>' || (head[0] == '\x1f' && head[1] == '\x8b');
    throw bad(reads ? "this is FASTQ, FASTA or gzip, not a gatemap index: the index comes first "
                      "('gatemap map INDEX READS1 [READS2]'; build it with 'gatemap index REF.fa')"
              : whole_head ? "not a gatemap index (bad magic); build one with 'gatemap index REF.fa'"
                           : "file too short to be a gatemap index (truncated?)");
  }
  if (size < sizeof(FileHeader)) {
    ::close(fd);
    throw bad("file too short to be a gatemap index (truncated?)");
  }
  void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) throw IoError("cannot map '" + path + "': " + std::strerror(errno));
  auto idx = std::make_unique<Index>();
  // A bus error there (the file truncated by another program) names the index.
  auto explained = std::make_shared<ExplainedMapping>(map, size, path);
  idx->mapping_ = std::shared_ptr<void>(map, [size, explained](void* p) { munmap(p, size); });
  const auto* base = static_cast<const unsigned char*>(map);
  FileHeader h;
  std::memcpy(&h, base, sizeof(h));
  if (std::memcmp(h.magic, kMagic, 8) != 0) {
    throw bad("not a gatemap index (bad magic); build one with 'gatemap index REF.fa'");
  }
  if (h.version != kVersion) {
    throw bad("format version " + std::to_string(h.version) + ", this gatemap reads version " +
              std::to_string(kVersion) + ": rebuild it with 'gatemap index'");
  }
  if (h.header_checksum != checksum(&h, offsetof(FileHeader, header_checksum))) throw bad("header checksum mismatch");
  idx->path_ = path;
  for (int i = 0; i < kSections; ++i) {
    const Section& s = h.sections[i];
    if (s.offset > size || s.bytes > size - s.offset) {  // (no sum that could wrap around)
      throw bad("truncated (section " + std::to_string(i) + " runs past the end)");
    }
    idx->unchecked_.push_back({s.offset, s.bytes, s.checksum});
  }
  if (when == Checksums::now) {
    idx->verify_checksums();
    idx->unchecked_.clear();
  }
  check_layout(h, base, bad);
  const auto sec = [&](SectionId id) { return base + h.sections[id].offset; };
  idx->k_ = static_cast<int>(h.k);
  idx->stride_ = static_cast<int>(h.stride);
  idx->bucket_bits_ = static_cast<int>(h.bucket_bits);
  idx->max_occ_ = h.max_occ;
  idx->length_ = static_cast<int64_t>(h.length);
  idx->n_runs_ = static_cast<int64_t>(h.n_runs);
  idx->hi_ = reinterpret_cast<const uint64_t*>(sec(kHi));
  idx->lo_ = reinterpret_cast<const uint64_t*>(sec(kLo));
  idx->n_begin_ = reinterpret_cast<const int64_t*>(sec(kNBegin));
  idx->n_end_ = reinterpret_cast<const int64_t*>(sec(kNEnd));
  idx->bucket_offsets_ = reinterpret_cast<const uint32_t*>(sec(kOffsets));
  idx->positions_ = reinterpret_cast<const uint32_t*>(sec(kPositions));
  // Another k or bucket split than the table was built with puts keys in the wrong
  // buckets: a sample of buckets must hold keys of their own.
  const int shift = 2 * idx->k_ - idx->bucket_bits_;
  const uint64_t nbuckets = uint64_t{1} << idx->bucket_bits_, step = std::max<uint64_t>(1, nbuckets / 65536);
  for (uint64_t b = 0; b < nbuckets; b += step) {
    const uint32_t first = idx->bucket_offsets_[b];
    if (first != idx->bucket_offsets_[b + 1] && (idx->key_at(idx->positions_[first]) >> shift) != b) {
      throw bad("its k-mer table does not match its header (k or bucket bits)");
    }
  }
  const int64_t* st7 = h.stats;
  idx->stats_ = {st7[0], st7[1], st7[2], st7[3], st7[4], st7[5], st7[6]};
  // Contig table.
  const char* names = reinterpret_cast<const char*>(sec(kNames));
  const auto* lengths = reinterpret_cast<const uint64_t*>(sec(kLengths));
  size_t at = 0;
  int64_t begin = 0;
  for (uint32_t i = 0; i < h.n_contigs; ++i) {
    const char* nl = static_cast<const char*>(std::memchr(names + at, '\n', h.sections[kNames].bytes - at));
    if (!nl) throw bad("contig table is damaged");
    Contig c{std::string(names + at, nl), static_cast<int64_t>(lengths[i]), begin};
    at = static_cast<size_t>(nl - names) + 1;
    begin += c.length;
    idx->contigs_.push_back(std::move(c));
  }
  if (begin != idx->length_) throw bad("contig lengths do not add up to the reference length");
  idx->file_bytes_ = static_cast<int64_t>(size);
  return idx;
}

}  // namespace gatemap::index
