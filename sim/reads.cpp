// Illumina-like reads with truth: origin on the reference and CIGAR against it,
// through the donor's variants and the sequencing errors placed.
#include <omp.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "common/dna.hpp"
#include "common/error.hpp"
#include "sim/rng.hpp"
#include "sim/sim.hpp"

namespace gatemap::sim {
namespace {

// Where each stretch of a haplotype sits on the reference.
struct Block {
  int64_t hap_begin, ref_begin, length;
  bool inserted;  // haplotype-only bases (insertion relative to the reference)
};

std::vector<std::vector<Block>> hap_blocks(const std::vector<io::FastaRecord>& ref, const Donor* donor, int h) {
  std::vector<std::vector<Block>> out(ref.size());
  size_t vi = 0;
  for (size_t c = 0; c < ref.size(); ++c) {
    int64_t hap_at = 0, ref_at = 0;
    auto& blocks = out[c];
    const auto aligned = [&](int64_t n) {
      if (n > 0) blocks.push_back({hap_at, ref_at, n, false});
      hap_at += n;
      ref_at += n;
    };
    if (donor) {
      for (; vi < donor->variants.size() && donor->variants[vi].contig == static_cast<int32_t>(c); ++vi) {
        const Variant& v = donor->variants[vi];
        if (!(v.genotype & (1 << h))) continue;
        aligned(v.pos - ref_at);
        const int64_t rl = static_cast<int64_t>(v.ref.size()), al = static_cast<int64_t>(v.alt.size());
        const int64_t common = std::min(rl, al);  // SNP base, or the indel's anchor
        aligned(common);
        if (al > rl) {
          blocks.push_back({hap_at, ref_at, al - rl, true});
          hap_at += al - rl;
        } else {
          ref_at += rl - al;  // deleted reference bases
        }
      }
    }
    aligned(static_cast<int64_t>(ref[c].seq.size()) - ref_at);
  }
  return out;
}

// Walks a haplotype's blocks for increasing positions: reference position of haplotype
// base h, or -1 when it is inserted.
class RefCursor {
 public:
  explicit RefCursor(const std::vector<Block>& blocks) : blocks_(blocks) {}
  int64_t ref_of(int64_t h) {
    if (!started_ || h < blocks_[at_].hap_begin) {
      at_ = static_cast<size_t>(std::upper_bound(blocks_.begin(), blocks_.end(), h,
                                                 [](int64_t x, const Block& b) { return x < b.hap_begin; }) -
                                blocks_.begin()) - 1;
      started_ = true;
    }
    while (at_ + 1 < blocks_.size() && blocks_[at_ + 1].hap_begin <= h) ++at_;
    const Block& b = blocks_[at_];
    return b.inserted ? -1 : b.ref_begin + (h - b.hap_begin);
  }

 private:
  const std::vector<Block>& blocks_;
  size_t at_ = 0;
  bool started_ = false;
};

void push_op(std::vector<std::pair<char, int64_t>>& ops, char op, int64_t n) {
  if (n <= 0) return;
  if (!ops.empty() && ops.back().first == op) ops.back().second += n;
  else ops.emplace_back(op, n);
}

// Builds the truth from the haplotype position of each read base (forward orientation,
// -1 for a base inserted by a sequencing error).
ReadTruth truth_of(const std::string& contig, const std::vector<Block>& blocks, const std::vector<int64_t>& hap_pos,
                   bool reverse) {
  std::vector<std::pair<char, int64_t>> ops;
  int64_t first = -1, last = -1;
  RefCursor cursor(blocks);
  for (int64_t h : hap_pos) {
    const int64_t r = h < 0 ? -1 : cursor.ref_of(h);
    if (r < 0) {
      push_op(ops, 'I', 1);
      continue;
    }
    if (last >= 0) push_op(ops, 'D', r - last - 1);
    push_op(ops, 'M', 1);
    if (first < 0) first = r;
    last = r;
  }
  ReadTruth t;
  t.contig = contig;
  t.reverse = reverse;
  t.pos1 = first + 1;
  for (const auto& [op, n] : ops) t.cigar += std::to_string(n) + op;
  if (first < 0) t.cigar = std::to_string(hap_pos.size()) + "I";
  return t;
}

struct Fragment {
  int h, contig;
  int64_t begin, end;  // on the haplotype
  bool reverse;        // mate 1 on the reverse strand
};

}  // namespace

void simulate_reads(const std::vector<io::FastaRecord>& ref, const Donor* donor, const ReadOptions& opt,
                    std::vector<SimRead>& out) {
  if (opt.read_len < 1 || opt.read_len > 100000) throw UsageError("-l must be in 1..100000");
  if (opt.paired && opt.insert_mean < opt.read_len) throw UsageError("--insert must be at least the read length");
  const std::vector<io::FastaRecord>* haps[2] = {donor ? &donor->hap[0] : &ref, donor ? &donor->hap[1] : &ref};
  const std::vector<std::vector<Block>> blocks[2] = {hap_blocks(ref, donor, 0), hap_blocks(ref, donor, 1)};
  std::vector<double> cumulative;
  double total = 0;
  for (const auto& r : ref) cumulative.push_back(total += static_cast<double>(r.seq.size()));
  const int L = opt.read_len;
  const int mates = opt.paired ? 2 : 1;
  // Error probability rises along the read (mean = sub_rate); qualities follow it, lower
  // on the bases made wrong.
  std::vector<double> p_sub(L);
  std::vector<int> q_ok(L), q_error(L);
  for (int i = 0; i < L; ++i) {
    p_sub[i] = opt.sub_rate * (0.5 + static_cast<double>(i) / std::max(1, L - 1));
    const double p = std::max(p_sub[i], 1e-5);
    q_ok[i] = static_cast<int>(std::lround(-10 * std::log10(p)));
    q_error[i] = static_cast<int>(std::lround(-10 * std::log10(std::min(0.75, 8 * p))));
  }
  out.assign(static_cast<size_t>(opt.n_fragments * mates), {});

#pragma omp parallel for schedule(dynamic, 1024)
  for (int64_t id = 0; id < opt.n_fragments; ++id) {
    Rng rng(substream(opt.seed, static_cast<uint64_t>(id)));
    // Draw a fragment that fits its contig and whose reads are not mostly N.
    Fragment f{};
    for (int attempt = 0;; ++attempt) {
      if (attempt > 10000) throw Error("cannot place reads: contigs too short or all N");
      f.h = static_cast<int>(rng.below(2));
      f.contig = static_cast<int>(std::upper_bound(cumulative.begin(), cumulative.end(), rng.uniform() * total) -
                                  cumulative.begin());
      f.contig = std::min<int>(f.contig, static_cast<int>(ref.size()) - 1);
      const std::string& seq = (*haps[f.h])[f.contig].seq;
      const int64_t frag = opt.paired ? std::max<int64_t>(L, std::llround(opt.insert_mean + opt.insert_sd * rng.normal()))
                                      : L;
      const int64_t slack = L / 10 + 5;  // room for deletion errors on either side
      if (frag + 2 * slack > static_cast<int64_t>(seq.size())) continue;
      f.begin = slack + rng.below(static_cast<int64_t>(seq.size()) - frag - 2 * slack + 1);
      f.end = f.begin + frag;
      f.reverse = rng.below(2);
      int64_t n = 0;
      for (int64_t i = f.begin; i < f.begin + L; ++i) n += std::toupper(seq[i]) == 'N';
      for (int64_t i = f.end - L; i < f.end; ++i) n += std::toupper(seq[i]) == 'N';
      if (n * 10 < 2 * L) break;
    }
    const std::string& seq = (*haps[f.h])[f.contig].seq;
    ReadTruth truths[2];
    for (int m = 0; m < mates; ++m) {
      // Mate 1 reads the fragment from its start on the forward strand unless reversed;
      // mate 2 reads the other end on the other strand.
      const bool reverse = (m == 0) ? f.reverse : !f.reverse;
      const bool from_start = (m == 0) != f.reverse;
      SimRead& r = out[static_cast<size_t>(id * mates + m)];
      std::vector<int64_t> hap_pos;  // in read order
      int64_t t = 0;                 // template bases consumed
      const int64_t avail = static_cast<int64_t>(seq.size());
      const auto template_pos = [&](int64_t k) {
        return from_start ? f.begin + k : f.end - 1 - k;
      };
      r.seq.clear();
      r.qual.clear();
      r.true_seq.clear();
      r.errors = 0;
      r.seq.reserve(L);
      r.qual.reserve(L);
      r.true_seq.reserve(L);
      hap_pos.reserve(L);
      for (int i = 0; i < L;) {
        // One 64-bit draw per base: 20 bits each decide indel, substitution and N; the
        // top bits give the quality noise. Further draws only when an error happens.
        const uint64_t x = rng.next();
        const double u_indel = static_cast<double>(x & 0xfffff) * 0x1.0p-20;
        const double u_sub = static_cast<double>((x >> 20) & 0xfffff) * 0x1.0p-20;
        const double u_n = static_cast<double>((x >> 40) & 0xfffff) * 0x1.0p-20;
        const int noise = static_cast<int>((x >> 60) & 3) + static_cast<int>((x >> 62) & 1) - 2;  // -2..2
        if (u_indel < opt.indel_rate / 2) {  // inserted base
          r.seq += "ACGT"[rng.below(4)];
          r.true_seq += '-';
          hap_pos.push_back(-1);
          r.qual += static_cast<char>(33 + std::clamp(q_error[i] + noise, 2, 41));
          ++r.errors;
          ++i;
          continue;
        }
        if (u_indel < opt.indel_rate && t + 1 < L) {  // deleted template base
          ++t;
          ++r.errors;
          continue;
        }
        const int64_t hp = template_pos(t++);
        if (hp < 0 || hp >= avail) break;
        char b = kCodeToAscii[base_code(seq[hp])];
        if (reverse) b = kCodeToAscii[complement_code(base_code(b))];
        r.true_seq += b;
        hap_pos.push_back(hp);
        const bool error = u_sub < p_sub[i] && b != 'N';
        if (error) {
          b = kCodeToAscii[(base_code(b) + 1 + rng.below(3)) & 3];
          ++r.errors;
        }
        if (u_n < opt.n_rate) b = 'N';
        const int q = b == 'N' ? 2 : (error ? q_error[i] : q_ok[i]) + noise;
        r.seq += b;
        r.qual += static_cast<char>(33 + std::clamp(q, 2, 41));
        ++i;
      }
      // Truth on the forward strand of the reference.
      if (reverse) std::reverse(hap_pos.begin(), hap_pos.end());
      truths[m] = truth_of(ref[f.contig].name, blocks[f.h][f.contig], hap_pos, reverse);
    }
    const std::string name = encode_truth_name(id, truths[0], opt.paired ? &truths[1] : nullptr);
    for (int m = 0; m < mates; ++m) {
      out[static_cast<size_t>(id * mates + m)].name = name;
      out[static_cast<size_t>(id * mates + m)].truth = truths[m];
    }
  }
}

std::string encode_truth_name(int64_t id, const ReadTruth& t1, const ReadTruth* t2) {
  const auto field = [](const ReadTruth& t) {
    return t.contig + "!" + std::to_string(t.pos1) + "!" + (t.reverse ? "-" : "+") + "!" + t.cigar;
  };
  std::string name = "s" + std::to_string(id) + "!" + field(t1);
  if (t2) name += "!" + field(*t2);
  return name;
}

bool decode_truth_name(const std::string& name, int mate, ReadTruth& out) {
  std::vector<std::string> parts;
  size_t at = 0;
  while (true) {
    const size_t next = name.find('!', at);
    parts.push_back(name.substr(at, next == std::string::npos ? std::string::npos : next - at));
    if (next == std::string::npos) break;
    at = next + 1;
  }
  if (parts.size() != 5 && parts.size() != 9) return false;
  const size_t base = (mate == 2 && parts.size() == 9) ? 5 : 1;
  out.contig = parts[base];
  try {
    out.pos1 = std::stoll(parts[base + 1]);
  } catch (...) {
    return false;
  }
  if (parts[base + 2] != "+" && parts[base + 2] != "-") return false;
  out.reverse = parts[base + 2] == "-";
  out.cigar = parts[base + 3];
  return true;
}

}  // namespace gatemap::sim
