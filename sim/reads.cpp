// Illumina-like reads with truth: origin on the reference and CIGAR against it,
// through the donor's variants and the sequencing errors placed.
#include <omp.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>

#include "common/dna.hpp"
#include "common/error.hpp"
#include "common/parallel.hpp"
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
    const Block& b = block_at(h);
    return b.inserted ? -1 : b.ref_begin + (h - b.hap_begin);
  }
  const Block& block_at(int64_t h) {
    if (!started_ || h < blocks_[at_].hap_begin) {
      at_ = static_cast<size_t>(std::upper_bound(blocks_.begin(), blocks_.end(), h,
                                                 [](int64_t x, const Block& b) { return x < b.hap_begin; }) -
                                blocks_.begin()) - 1;
      started_ = true;
    }
    while (at_ + 1 < blocks_.size() && blocks_[at_ + 1].hap_begin <= h) ++at_;
    return blocks_[at_];
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

// A stretch of a read: `len` bases copied from haplotype [hap_begin, hap_begin+len)
// (forward orientation), or one base inserted by a sequencing error (hap_begin = -1).
struct Piece {
  int64_t hap_begin;
  int64_t len;
};

// The truth from the read's pieces in forward reference orientation: O(pieces + blocks).
ReadTruth truth_of(const std::string& contig, const std::vector<Block>& blocks, const std::vector<Piece>& pieces,
                   bool reverse) {
  thread_local std::vector<std::pair<char, int64_t>> ops;
  ops.clear();
  int64_t first = -1, last = -1, bases = 0;
  RefCursor cursor(blocks);
  for (const Piece& p : pieces) {
    bases += p.hap_begin < 0 ? 1 : p.len;
    if (p.hap_begin < 0) {
      push_op(ops, 'I', 1);
      continue;
    }
    for (int64_t a = p.hap_begin, b = p.hap_begin + p.len; a < b;) {
      const Block& blk = cursor.block_at(a);
      const int64_t n = std::min(b, blk.hap_begin + blk.length) - a;
      if (blk.inserted) {
        push_op(ops, 'I', n);
      } else {
        const int64_t r0 = blk.ref_begin + (a - blk.hap_begin);
        if (last >= 0) push_op(ops, 'D', r0 - last - 1);
        push_op(ops, 'M', n);
        if (first < 0) first = r0;
        last = r0 + n - 1;
      }
      a += n;
    }
  }
  ReadTruth t;
  t.contig = contig;
  t.reverse = reverse;
  t.pos1 = first + 1;
  char buf[24];
  for (const auto& [op, n] : ops) {
    const auto end = std::to_chars(buf, buf + sizeof buf, n).ptr;
    t.cigar.append(buf, end);
    t.cigar += op;
  }
  if (first < 0) t.cigar = std::to_string(bases) + "I";
  return t;
}

// ASCII -> uppercase ACGTN, and -> its complement (anything else becomes N).
std::array<char, 256> base_table(bool complement) {
  std::array<char, 256> t{};
  for (int c = 0; c < 256; ++c) {
    const uint8_t code = base_code(static_cast<char>(c));
    t[c] = kCodeToAscii[complement ? complement_code(code) : code];
  }
  return t;
}
const std::array<char, 256> kUpper = base_table(false);
const std::array<char, 256> kComplementUpper = base_table(true);

struct Fragment {
  int h, contig;
  int64_t begin, end;  // on the haplotype
  bool reverse;        // mate 1 on the reverse strand
};

// The sequencer: error probability rising along the read (mean = sub_rate), qualities
// following it, lower on the bases made wrong. Errors are placed by thinning a Poisson
// process at the highest per-base rate, so only event positions cost random draws.
// Qualities come from a pool of noisy profiles (drawn once from the seed), lowered
// where an error is placed.
class ReadModel {
 public:
  static constexpr int kPool = 1024;
  explicit ReadModel(const ReadOptions& opt) : opt_(opt), L_(opt.read_len), p_sub_(L_), q_error_(L_) {
    std::vector<int> q_ok(L_);
    for (int i = 0; i < L_; ++i) {
      p_sub_[i] = opt.sub_rate * (0.5 + static_cast<double>(i) / std::max(1, L_ - 1));
      const double p = std::max(p_sub_[i], 1e-5);
      q_ok[i] = static_cast<int>(std::lround(-10 * std::log10(p)));
      q_error_[i] = static_cast<int>(std::lround(-10 * std::log10(std::min(0.75, 8 * p))));
    }
    max_rate_ = opt.indel_rate + opt.n_rate + *std::max_element(p_sub_.begin(), p_sub_.end());
    log_keep_ = std::log1p(-std::min(max_rate_, 0.999));
    quality_pool_.assign(kPool, std::string(static_cast<size_t>(L_), 'I'));
    Rng qrng(substream(opt.seed, ~uint64_t{0}));
    for (auto& q : quality_pool_) {
      for (int i = 0; i < L_; ++i) q[i] = static_cast<char>(33 + std::clamp(q_ok[i] + static_cast<int>(qrng.below(5)) - 2, 2, 41));
    }
  }
  int64_t slack() const { return L_ / 10 + 5; }  // room for deletion errors on either side

  // One read of template `seq`: template base t sits at `origin + dir * t`; `reverse`
  // complements it. Its bases, qualities and errors into r; the template pieces it
  // copied (-1: a base the sequencer inserted) into `pieces`, in read order.
  void read(Rng& rng, const std::string& seq, int64_t origin, int64_t dir, bool reverse, SimRead& r,
            std::vector<Piece>& pieces) const {
    r.seq.resize(static_cast<size_t>(L_));
    r.true_seq.clear();
    if (opt_.keep_true_seq) r.true_seq.reserve(static_cast<size_t>(L_));
    r.qual = quality_pool_[static_cast<size_t>(rng.below(kPool))];
    r.errors = 0;
    pieces.clear();
    const auto next_gap = [&]() -> int64_t {  // read bases until the next candidate event
      if (max_rate_ <= 0) return int64_t{1} << 40;
      return static_cast<int64_t>(std::floor(std::log1p(-rng.uniform()) / log_keep_));
    };
    const char* to_base = reverse ? kComplementUpper.data() : kUpper.data();
    const auto copy_run = [&](int64_t i, int64_t t, int64_t n) {
      const char* src = seq.data() + origin + dir * t;
      char* dst = &r.seq[i];
      for (int64_t k = 0; k < n; ++k) dst[k] = to_base[static_cast<unsigned char>(src[dir * k])];
      if (opt_.keep_true_seq) r.true_seq.append(dst, static_cast<size_t>(n));
      if (n > 0) {
        if (!pieces.empty() && pieces.back().hap_begin >= 0 && pieces.back().len > 0 &&
            pieces.back().hap_begin + pieces.back().len == t) {
          pieces.back().len += n;  // pieces hold template offsets until converted by the caller
        } else {
          pieces.push_back({t, n});
        }
      }
    };
    const auto error_quality = [&](int64_t i) {
      return static_cast<char>(33 + std::clamp(q_error_[i] + static_cast<int>(rng.below(5)) - 2, 2, 41));
    };
    int64_t i = 0, t = 0, gap = next_gap();
    while (i < L_) {
      const int64_t run = std::min<int64_t>(L_ - i, gap);
      copy_run(i, t, run);
      i += run;
      t += run;
      gap -= run;
      if (i >= L_) break;
      gap = next_gap();
      const double u = rng.uniform() * max_rate_;
      if (u < opt_.indel_rate / 2) {  // a base inserted by the sequencer
        r.seq[i] = "ACGT"[rng.below(4)];
        if (opt_.keep_true_seq) r.true_seq += '-';
        r.qual[i] = error_quality(i);
        pieces.push_back({-1, 1});
        ++r.errors;
        ++i;
      } else if (u < opt_.indel_rate && t < L_ + slack() - 1) {  // a template base skipped
        ++t;
        ++r.errors;
      } else {
        copy_run(i, t, 1);
        if (u < opt_.indel_rate + opt_.n_rate) {
          r.seq[i] = 'N';
          r.qual[i] = '#';
        } else if (u < opt_.indel_rate + opt_.n_rate + p_sub_[i] && r.seq[i] != 'N') {
          r.seq[i] = kCodeToAscii[(base_code(r.seq[i]) + 1 + rng.below(3)) & 3];
          r.qual[i] = error_quality(i);
          ++r.errors;
        }
        ++i;
        ++t;
      }
    }
  }

 private:
  const ReadOptions& opt_;
  int L_;
  std::vector<double> p_sub_;
  std::vector<int> q_error_;
  double max_rate_ = 0, log_keep_ = 0;
  std::vector<std::string> quality_pool_;
};

// A fragment that fits its contig and whose reads are not mostly N (false after 10,000
// tries).
bool place_fragment(Rng& rng, const ReadOptions& opt, const std::vector<io::FastaRecord>* const haps[2],
                    const std::vector<double>& cumulative, double total, int64_t slack, Fragment& f) {
  const int L = opt.read_len;
  const int n_contigs = static_cast<int>(haps[0]->size());
  for (int attempt = 0; attempt <= 10000; ++attempt) {
    f.h = static_cast<int>(rng.below(2));
    f.contig = static_cast<int>(std::upper_bound(cumulative.begin(), cumulative.end(), rng.uniform() * total) -
                                cumulative.begin());
    f.contig = std::min<int>(f.contig, n_contigs - 1);
    const std::string& seq = (*haps[f.h])[f.contig].seq;
    const int64_t frag =
        opt.paired ? std::max<int64_t>(L, std::llround(opt.insert_mean + opt.insert_sd * rng.normal())) : L;
    if (frag + 2 * slack > static_cast<int64_t>(seq.size())) continue;
    f.begin = slack + rng.below(static_cast<int64_t>(seq.size()) - frag - 2 * slack + 1);
    f.end = f.begin + frag;
    f.reverse = rng.below(2);
    int64_t n = 0;
    for (int64_t i = f.begin; i < f.begin + L; ++i) n += (seq[i] | 0x20) == 'n';
    for (int64_t i = f.end - L; i < f.end; ++i) n += (seq[i] | 0x20) == 'n';
    if (n * 10 < 2 * L) return true;
  }
  return false;
}

}  // namespace

void simulate_reads(const std::vector<io::FastaRecord>& ref, const Donor* donor, const ReadOptions& opt,
                    std::vector<SimRead>& out, int64_t first_fragment, int64_t count) {
  if (count < 0) count = opt.n_fragments - first_fragment;
  if (opt.read_len < 1 || opt.read_len > 100000) throw UsageError("-l must be in 1..100000");
  if (opt.paired && opt.insert_mean < opt.read_len) throw UsageError("--insert must be at least the read length");
  const std::vector<io::FastaRecord>* const haps[2] = {donor ? &donor->hap[0] : &ref, donor ? &donor->hap[1] : &ref};
  const std::vector<std::vector<Block>> blocks[2] = {hap_blocks(ref, donor, 0), hap_blocks(ref, donor, 1)};
  std::vector<double> cumulative;
  double total = 0;
  for (const auto& r : ref) cumulative.push_back(total += static_cast<double>(r.seq.size()));
  const int L = opt.read_len;
  const int mates = opt.paired ? 2 : 1;
  const ReadModel model(opt);
  // Reads of fragment id depend on (seed, id) alone, so chunks of any size give the same
  // reads; `out` is resized, not rebuilt, so its strings' storage is reused across chunks.
  const int64_t slack = model.slack();
  const int64_t shortest_fragment = L + 2 * slack;
  if (std::none_of(haps[0]->begin(), haps[0]->end(), [&](const io::FastaRecord& r) {
        return static_cast<int64_t>(r.seq.size()) >= shortest_fragment;
      })) {
    throw Error("cannot place reads of " + std::to_string(L) + " bp: every contig is shorter than " +
                std::to_string(shortest_fragment) + " bp");
  }
  out.resize(static_cast<size_t>(count * mates));
  bool placement_failed = false;

  ParallelErrors errors;
#pragma omp parallel for schedule(dynamic, 1024)
  for (int64_t k = 0; k < count; ++k) {
    errors.run([&] {
      const int64_t id = first_fragment + k;
      Rng rng(substream(opt.seed, static_cast<uint64_t>(id)));
      Fragment f{};
      if (!place_fragment(rng, opt, haps, cumulative, total, slack, f)) {  // no exception may leave an OpenMP loop
#pragma omp atomic write
        placement_failed = true;
        return;
      }
      const std::string& seq = (*haps[f.h])[f.contig].seq;
      ReadTruth truths[2];
      thread_local std::vector<Piece> pieces;  // reused: no allocation per read
      for (int m = 0; m < mates; ++m) {
        // Mate 1 reads the fragment from its start on the forward strand unless reversed;
        // mate 2 reads the other end on the other strand.
        const bool reverse = (m == 0) ? f.reverse : !f.reverse;
        const bool from_start = (m == 0) != f.reverse;
        const int64_t origin = from_start ? f.begin : f.end - 1;
        model.read(rng, seq, origin, from_start ? 1 : -1, reverse, out[static_cast<size_t>(k * mates + m)], pieces);
        // Template offsets -> haplotype intervals in forward orientation.
        for (Piece& p : pieces) {
          if (p.hap_begin < 0) continue;
          p.hap_begin = from_start ? origin + p.hap_begin : origin - (p.hap_begin + p.len - 1);
        }
        if (!from_start) std::reverse(pieces.begin(), pieces.end());
        truths[m] = truth_of(ref[f.contig].name, blocks[f.h][f.contig], pieces, reverse);
      }
      std::string name = encode_truth_name(id, truths[0], opt.paired ? &truths[1] : nullptr);
      for (int m = mates - 1; m >= 0; --m) {  // the last copy moves
        SimRead& r = out[static_cast<size_t>(k * mates + m)];
        r.name = m ? name : std::move(name);
        r.truth = std::move(truths[m]);
      }
    });
  }
  errors.rethrow();
  if (placement_failed) throw Error("cannot place reads: the contigs are too short or mostly N");
}

std::string encode_truth_name(int64_t id, const ReadTruth& t1, const ReadTruth* t2) {
  std::string name;
  name.reserve(64);
  char buf[24];
  const auto number = [&](int64_t v) { name.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr); };
  const auto field = [&](const ReadTruth& t) {
    name += '!';
    name += t.contig;
    name += '!';
    number(t.pos1);
    name += t.reverse ? "!-!" : "!+!";
    name += t.cigar;
  };
  name += 's';
  number(id);
  field(t1);
  if (t2) field(*t2);
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
