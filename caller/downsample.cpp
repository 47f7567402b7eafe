// Downsampling by start position, as GATK's --max-reads-per-alignment-start: deep data
// (amplicons, panels at thousands x) keeps a bounded number of reads per start and sample.
#include <algorithm>
#include <numeric>

#include "caller/detail.hpp"

namespace gatemap::caller::detail {

namespace {

// FNV-1a of the read's bases, qualities and strand: which reads stay does not depend on
// the order the input (or the merge of several files) gives reads of one position in.
uint64_t read_hash(const AlignedRead& r) {
  uint64_t h = 0xcbf29ce484222325ULL;
  const auto mix = [&h](unsigned char c) { h = (h ^ c) * 0x100000001b3ULL; };
  for (char c : r.seq) mix(static_cast<unsigned char>(c));
  for (uint8_t q : r.qual) mix(q);
  mix(r.reverse ? 1 : 0);
  return h;
}

}  // namespace

int64_t downsample_start(std::vector<AlignedRead>& reads, size_t first, int keep, std::vector<AlignedRead>& removed) {
  const size_t n = reads.size() - first;
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), first);
  std::vector<uint64_t> hash(n);
  for (size_t i = 0; i < n; ++i) hash[i] = read_hash(reads[first + i]);
  // By sample, then hash (ties: input order); each sample's first `keep` stay.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (reads[a].sample != reads[b].sample) return reads[a].sample < reads[b].sample;
    return hash[a - first] < hash[b - first];
  });
  std::vector<char> stays(n, 0);
  int run = 0;
  for (size_t i = 0; i < n; ++i) {
    run = (i > 0 && reads[order[i]].sample == reads[order[i - 1]].sample) ? run + 1 : 0;
    stays[order[i] - first] = run < keep;
  }
  size_t kept = first;
  for (size_t i = first; i < reads.size(); ++i) {
    if (!stays[i - first]) {
      removed.push_back(std::move(reads[i]));
    } else if (kept++ != i) {
      reads[kept - 1] = std::move(reads[i]);
    }
  }
  const auto moved = static_cast<int64_t>(reads.size() - kept);
  reads.resize(kept);
  return moved;
}

}  // namespace gatemap::caller::detail
