// Building the index: pack the FASTA, then count / place / sort sampled k-mers.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "common/error.hpp"
#include "common/log.hpp"
#include "common/parallel.hpp"
#include "index/index.hpp"
#include "io/reads/fasta.hpp"

namespace gatemap::index {
namespace {

// N-free stretches inside contigs where k-mers may start: [begin, end) global.
struct Segment {
  int64_t begin, end;
};

std::vector<Segment> kmer_segments(const std::vector<Contig>& contigs, const std::vector<int64_t>& nb,
                                   const std::vector<int64_t>& ne) {
  std::vector<Segment> out;
  size_t r = 0;
  for (const auto& c : contigs) {
    int64_t at = c.begin;
    const int64_t end = c.begin + c.length;
    while (r < nb.size() && ne[r] <= at) ++r;
    while (at < end) {
      const int64_t stop = (r < nb.size() && nb[r] < end) ? std::max(nb[r], at) : end;
      if (stop > at) out.push_back({at, stop});
      if (stop >= end) break;
      at = ne[r];
      ++r;
    }
  }
  return out;
}

std::string mb(int64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

// A contig SAM, BAM and VCF can hold: a name as the SAM spec (1.2.1) allows and
// positions within BAM's 32-bit signed range (FastaReader refuses a name given twice).
// Found now, not when a record or a VCF header line cannot be written.
void check_contig(const std::string& path, const io::FastaRecord& rec) {
  const auto bad = [&](const std::string& why) {
    return FormatError("FASTA '" + path + "' contig '" + rec.name + "': " + why);
  };
  static const std::string kFirst = "!#$%&+./:;?@^_|~-", kRest = "!#$%&*+./:;=?@^_|~-";
  for (size_t i = 0; i < rec.name.size(); ++i) {
    const char c = rec.name[i];
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || (i == 0 ? kFirst : kRest).find(c) != std::string::npos;
    if (!ok) throw bad("the character '" + std::string(1, c) + "' is not allowed in a SAM/VCF contig name");
  }
  if (static_cast<int64_t>(rec.seq.size()) > INT32_MAX) {
    throw bad(std::to_string(rec.seq.size()) + " bp: SAM/BAM positions stop at 2^31-1");
  }
}

// Sampled start positions of a segment: global positions p with p % stride == 0 and p + k <= end.
template <class Fn>
void for_each_start(const Segment& s, int stride, int k, Fn&& fn) {
  int64_t p = (s.begin + stride - 1) / stride * stride;
  for (; p + k <= s.end; p += stride) fn(p);
}

}  // namespace

// build_index's steps, one function each (a friend of Index: they fill its members).
struct IndexBuilder {
  // 1. The reference packed, its N runs kept aside.
  static void pack_reference(Index& idx, const std::string& fasta_path, double t0) {
    io::FastaReader reader(fasta_path);
    io::FastaRecord rec;
    PackedSeq& packed = idx.packed_;
    while (reader.next(rec)) {
      check_contig(fasta_path, rec);
      Contig c{rec.name, static_cast<int64_t>(rec.seq.size()), packed.length};
      if (c.begin + c.length >= (int64_t{1} << 32) - 1) {
        throw FormatError("reference '" + fasta_path + "' exceeds the 4 Gbp of 32-bit coordinates");
      }
      packed.append(rec.seq.data(), c.length);
      for (const char* p = rec.seq.data(); (p = static_cast<const char*>(
                                                std::memchr(p, 'N', rec.seq.data() + c.length - p))) != nullptr;) {
        const int64_t at = p - rec.seq.data();
        int64_t end = at;
        while (end < c.length && rec.seq[end] == 'N') ++end;
        const int64_t g = c.begin + at;
        if (!idx.n_end_v_.empty() && idx.n_end_v_.back() == g) {
          idx.n_end_v_.back() = c.begin + end;  // a run continuing from the previous contig
        } else {
          idx.n_begin_v_.push_back(g);
          idx.n_end_v_.push_back(c.begin + end);
        }
        p = rec.seq.data() + end;
      }
      idx.contigs_.push_back(std::move(c));
    }
    if (idx.contigs_.empty()) throw FormatError("FASTA '" + fasta_path + "': no sequences");
    idx.length_ = packed.length;
    idx.hi_ = packed.hi.data();
    idx.lo_ = packed.lo.data();
    idx.n_begin_ = idx.n_begin_v_.data();
    idx.n_end_ = idx.n_end_v_.data();
    idx.n_runs_ = static_cast<int64_t>(idx.n_begin_v_.size());
    const auto& fs = reader.stats();
    idx.stats_.n_bases = fs.n_bases;
    idx.stats_.iupac_to_n = fs.iupac_to_n;
    idx.stats_.lowercase = fs.lowercase_bases;
    log::info("index", "read " + std::to_string(idx.contigs_.size()) + " contigs, " + std::to_string(packed.length) +
                           " bp (" + std::to_string(fs.n_bases) + " N, " + std::to_string(fs.iupac_to_n) +
                           " IUPAC->N, " + std::to_string(fs.lowercase_bases) + " lowercase) in " +
                           std::to_string(log::wall_seconds() - t0) + " s");
  }

  // 3. Positions counted per bucket, the counts turned into bucket ends (inclusive prefix
  // sums); returns the number of positions.
  static uint64_t count_positions(Index& idx, const std::vector<Segment>& segments, int shift) {
    const size_t nbuckets = size_t{1} << idx.bucket_bits_;
    std::vector<uint32_t>& offsets = idx.offsets_v_;
    offsets.assign(nbuckets + 1, 0);
    uint32_t* counts = offsets.data();
    const int64_t nseg = static_cast<int64_t>(segments.size());
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t si = 0; si < nseg; ++si) {
      for_each_start(segments[si], idx.stride_, idx.k_, [&](int64_t p) {
        __atomic_fetch_add(&counts[idx.key_at(p) >> shift], 1u, __ATOMIC_RELAXED);
      });
    }
    uint64_t total = 0;
    for (size_t b = 0; b < nbuckets; ++b) {
      total += offsets[b];
      offsets[b] = static_cast<uint32_t>(total);
    }
    if (total >= (uint64_t{1} << 32)) throw Error("too many k-mer positions for 32-bit offsets; raise -s");
    offsets[nbuckets] = static_cast<uint32_t>(total);
    return total;
  }

  // 4. Positions placed by decrementing bucket ends; afterwards offsets[b] is bucket b's
  // start. Returns the key bits below the bucket (when the table is smaller than 4^k),
  // kept beside each position while sorting so that no key is recomputed from the reference.
  static std::vector<uint32_t> place_positions(Index& idx, const std::vector<Segment>& segments, int shift,
                                               uint64_t total) {
    std::vector<uint32_t>& offsets = idx.offsets_v_;
    std::vector<uint32_t>& positions = idx.positions_v_;
    positions.resize(std::max<uint64_t>(total, 1));
    std::vector<uint32_t> residual(shift > 0 ? positions.size() : 0);
    const uint64_t residual_mask = (uint64_t{1} << shift) - 1;
    const int64_t nseg = static_cast<int64_t>(segments.size());
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t si = 0; si < nseg; ++si) {
      for_each_start(segments[si], idx.stride_, idx.k_, [&](int64_t p) {
        const uint64_t key = idx.key_at(p);
        const uint32_t at = __atomic_sub_fetch(&offsets[key >> shift], 1u, __ATOMIC_RELAXED);
        positions[at] = static_cast<uint32_t>(p);
        if (shift > 0) residual[at] = static_cast<uint32_t>(key & residual_mask);
      });
    }
    return residual;
  }

  // 5. Each bucket sorted by (key, position) so lookups are deterministic binary searches;
  // distinct and capped k-mers counted.
  static void sort_buckets(Index& idx, const std::vector<uint32_t>& residual, int shift) {
    const std::vector<uint32_t>& offsets = idx.offsets_v_;
    std::vector<uint32_t>& positions = idx.positions_v_;
    const int64_t nbuckets = int64_t{1} << idx.bucket_bits_;
    const uint32_t max_occ = idx.max_occ_;
    int64_t distinct = 0, capped = 0, capped_pos = 0;
    ParallelErrors errors;
#pragma omp parallel reduction(+ : distinct, capped, capped_pos)
    {
      std::vector<std::pair<uint32_t, uint32_t>> bucket;  // (residual key bits, position)
      const auto count_run = [&](size_t n) {
        ++distinct;
        if (n > max_occ) {
          ++capped;
          capped_pos += static_cast<int64_t>(n);
        }
      };
#pragma omp for schedule(dynamic, 4096)
      for (int64_t b = 0; b < nbuckets; ++b) {
        errors.run([&] {
          const uint32_t first = offsets[b], last = offsets[b + 1];
          if (last == first) return;
          if (shift == 0) {
            std::sort(positions.begin() + first, positions.begin() + last);
            count_run(last - first);
            return;
          }
          bucket.clear();
          for (uint32_t i = first; i < last; ++i) bucket.emplace_back(residual[i], positions[i]);
          std::sort(bucket.begin(), bucket.end());
          for (uint32_t i = first; i < last; ++i) positions[i] = bucket[i - first].second;
          for (size_t run = 0; run < bucket.size();) {
            size_t end = run + 1;
            while (end < bucket.size() && bucket[end].first == bucket[run].first) ++end;
            count_run(end - run);
            run = end;
          }
        });
      }
    }
    errors.rethrow();
    idx.stats_.distinct_kmers = distinct;
    idx.stats_.capped_kmers = capped;
    idx.stats_.capped_positions = capped_pos;
  }
};

std::unique_ptr<Index> build_index(const std::string& fasta_path, const IndexOptions& opt) {
  if (opt.k < 8 || opt.k > 16) throw UsageError("-k " + std::to_string(opt.k) + " is out of range (8..16)");
  if (opt.stride < 0 || opt.stride > 64) throw UsageError("-s must be in 0..64");
  if (opt.threads > 0) omp_set_num_threads(opt.threads);
  auto idx = std::make_unique<Index>();
  const double t0 = log::wall_seconds();
  IndexBuilder::pack_reference(*idx, fasta_path, t0);

  // 2. Parameters: stride and table size.
  idx->k_ = opt.k;
  idx->stride_ = opt.stride > 0 ? opt.stride : (idx->length_ > 1000000000 ? 2 : 1);
  idx->max_occ_ = opt.max_occ;
  const int64_t approx_positions = std::max<int64_t>(1, idx->length_ / idx->stride_);
  idx->bucket_bits_ = std::min(2 * opt.k, std::max(8, static_cast<int>(std::ceil(std::log2(approx_positions)))));
  const int shift = 2 * opt.k - idx->bucket_bits_;
  const auto segments = kmer_segments(idx->contigs_, idx->n_begin_v_, idx->n_end_v_);

  const uint64_t total = IndexBuilder::count_positions(*idx, segments, shift);
  log::info("index", "counted " + std::to_string(total) + " k-mer positions (k=" + std::to_string(opt.k) +
                         ", stride " + std::to_string(idx->stride_) + ", 2^" + std::to_string(idx->bucket_bits_) +
                         " buckets) at " + std::to_string(log::wall_seconds() - t0) + " s");
  const std::vector<uint32_t> residual = IndexBuilder::place_positions(*idx, segments, shift, total);
  IndexBuilder::sort_buckets(*idx, residual, shift);
  idx->bucket_offsets_ = idx->offsets_v_.data();
  idx->positions_ = idx->positions_v_.data();
  idx->stats_.positions = static_cast<int64_t>(total);
  log::info("index", "built: " + std::to_string(idx->stats_.distinct_kmers) + " distinct k-mers, " +
                         std::to_string(idx->stats_.capped_kmers) + " capped (> " + std::to_string(idx->max_occ_) +
                         " occurrences, " + std::to_string(idx->stats_.capped_positions) + " positions), table " +
                         mb(static_cast<int64_t>(idx->offsets_v_.size() * 4 + idx->positions_v_.size() * 4)) +
                         ", peak RSS " + mb(log::peak_rss_bytes()) + ", " + std::to_string(log::wall_seconds() - t0) +
                         " s");
  return idx;
}

}  // namespace gatemap::index
