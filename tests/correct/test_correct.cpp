// k-mer counting, spectra and the corrector's CPU twin against known truth.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

#include "common/dna.hpp"
#include "common/error.hpp"
#include "correct/correct.hpp"
#include "correct/count_pass.hpp"
#include "correct/kmer_correct.hpp"
#include "correct/kmer_correct_core.hpp"
#include "correct/kmer_count.hpp"
#include "correct/read_input.hpp"
#include "io/reads/fastq.hpp"
#include "tests/correct/correct_fixture.hpp"
#include "tests/test_util.hpp"

namespace gatemap {
namespace {

std::string revcomp(const std::string& s) {
  std::string r(s.rbegin(), s.rend());
  for (char& c : r) c = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : c == 'T' ? 'A' : 'N';
  return r;
}

uint64_t encode(const std::string& s) {
  uint64_t x = 0;
  for (char c : s) x = (x << 2) | std::string("ACGT").find(c);
  return x;
}

// Counts against a brute-force map of canonical k-mer strings.
TEST(KmerCounter, MatchesBruteForce) {
  sim::Rng rng(5);
  std::vector<io::Read> reads;
  for (int r = 0; r < 300; ++r) {
    std::string s(20 + rng.below(60), 'A');
    for (char& c : s) c = rng.uniform() < 0.02 ? 'N' : "ACGT"[rng.below(3)];  // low complexity: repeats
    reads.push_back({"r", s, std::string(s.size(), 'I'), ""});
  }
  for (int k : {9, 15, 31}) {
    correct::KmerCounter counter(k);
    counter.add(std::vector<io::Read>(reads.begin(), reads.begin() + 150));
    counter.add(std::vector<io::Read>(reads.begin() + 150, reads.end()));
    std::map<std::string, uint64_t> brute;
    uint64_t total = 0;
    for (const auto& r : reads) {
      for (size_t i = 0; i + k <= r.seq.size(); ++i) {
        const std::string w = r.seq.substr(i, k);
        if (w.find('N') != std::string::npos) continue;
        ++brute[std::min(w, revcomp(w))];
        ++total;
      }
    }
    EXPECT_EQ(counter.total(), total);
    EXPECT_EQ(counter.distinct(), brute.size());
    for (const auto& [w, c] : brute) ASSERT_EQ(counter.count(encode(w)), c) << w;
    const auto h = counter.histogram(255);
    uint64_t sum = 0;
    for (uint64_t x : h) sum += x;
    EXPECT_EQ(sum, brute.size());
  }
}

TEST(KmerCounter, FirstValley) {
  EXPECT_EQ(correct::first_valley({0, 1000, 100, 20, 30, 80, 90, 40}), 3u);
  EXPECT_EQ(correct::first_valley({0, 1000, 100, 50, 20, 10}), 0u);      // never turns up
  EXPECT_EQ(correct::first_valley({0, 1000, 100, 50, 52, 51, 10}), 0u);  // no real coverage peak
  EXPECT_EQ(correct::first_valley({0, 17276, 3176, 507, 212, 127, 64, 0, 1, 0}), 0u);  // 380 real reads: a stray k-mer
  // Deep coverage: the peak at 600 of 1023 bins, or past the range in the last bin.
  std::vector<uint64_t> deep(1024, 0);
  for (int c = 1; c < 1024; ++c) deep[c] = c < 40 ? 100000 / c : static_cast<uint64_t>(5000 * std::exp(-std::pow((c - 600) / 60.0, 2)));
  EXPECT_GE(correct::first_valley(deep), 40u);
  EXPECT_LE(correct::first_valley(deep), 400u);
  std::vector<uint64_t> beyond(256, 0);
  for (int c = 1; c < 255; ++c) beyond[c] = 100000 / c / c;
  beyond[255] = 20000;  // every k-mer of the genome seen more than 255 times
  EXPECT_GE(correct::first_valley(beyond), 2u);
  beyond[255] = 20;  // a few repeats only: no peak
  EXPECT_EQ(correct::first_valley(beyond), 0u);
}

// At 1x there is nothing to tell errors from: every read comes out unchanged.
TEST(Correct, LowCoveragePassesReadsThrough) {
  test::TempDir dir;
  const auto set = test::make_correction_set(200000, 100, 1, 0.5, 1, 4);
  test::write_file(dir.file("in.fq"), test::fastq_of(set));
  correct::CorrectRunOptions o;
  o.in1 = dir.file("in.fq");
  o.out1 = dir.file("out.fq");
  o.backend = "cpu";
  const auto sum = correct::run_correct(o);
  EXPECT_EQ(sum.threshold, 0u);
  EXPECT_EQ(sum.reads_changed, 0);
  io::FastqReader in(o.out1);
  io::Read r;
  size_t i = 0;
  while (in.next(r)) ASSERT_EQ(r.seq, set.reads[i++].seq);
  EXPECT_EQ(i, set.reads.size());
}

TEST(KmerSpectrum, BloomHasNoFalseNegativesAndItsRate) {
  const uint64_t n = 200000;
  for (double fpr : {1e-2, 1e-4}) {
    auto s = correct::KmerSpectrum::make_bloom(21, n, fpr);
    for (uint64_t i = 0; i < n; ++i) s.insert(correct::detail::mix64(i) >> 22);
    for (uint64_t i = 0; i < n; ++i) ASSERT_TRUE(s.contains(correct::detail::mix64(i) >> 22));
    uint64_t fp = 0;
    const uint64_t probes = 1000000;
    for (uint64_t i = 0; i < probes; ++i) fp += s.contains(correct::detail::mix64(i + (1ULL << 40)) >> 22);
    EXPECT_LT(static_cast<double>(fp) / probes, 2 * fpr) << fpr;
  }
  auto e = correct::KmerSpectrum::make_exact(21, n);
  for (uint64_t i = 0; i < n; ++i) e.insert(i * 7);
  for (uint64_t i = 0; i < 3 * n; ++i) ASSERT_EQ(e.contains(i), i % 7 == 0 && i / 7 < n) << i;
}

// The compact set's key: a bijection of the 2k-bit values and its inverse.
TEST(KmerSpectrum, CompactPermutationIsABijection) {
  for (int bits = 2; bits <= 16; bits += 2) {
    std::vector<uint8_t> hit(size_t{1} << bits, 0);
    for (uint64_t x = 0; x < hit.size(); ++x) {
      const uint64_t p = correct::detail::permute_bits(x, bits);
      ASSERT_LT(p, hit.size());
      ASSERT_FALSE(hit[p]) << bits << " " << x;
      hit[p] = 1;
      ASSERT_EQ(correct::detail::unpermute_bits(p, bits), x);
    }
  }
  for (int bits : {42, 62}) {
    for (uint64_t i = 0; i < 100000; ++i) {
      const uint64_t x = correct::detail::mix64(i) & correct::detail::low_bits_mask(bits);
      ASSERT_EQ(correct::detail::unpermute_bits(correct::detail::permute_bits(x, bits), bits), x);
    }
  }
}

// A compact set holds exactly what was inserted (against std::set), in half the bytes;
// k-mers crowding one home past the distances its slots can say widen it, losing none.
TEST(KmerSpectrum, CompactSetIsExactAndWidensWhenCrowded) {
  const int k = 21;
  const uint64_t n = 1000000;
  auto s = correct::KmerSpectrum::make_exact(k, n);
  ASSERT_EQ(s.kind, correct::KmerSpectrum::Kind::compact);
  EXPECT_EQ(s.bytes(), correct::KmerSpectrum::make_exact(k, n, false).bytes() / 2);
  EXPECT_EQ(correct::KmerSpectrum::make_exact(k, n, false).kind, correct::KmerSpectrum::Kind::exact);
  std::set<uint64_t> truth;
  std::vector<uint64_t> keys;
  for (uint64_t i = 0; i < n; ++i) keys.push_back(correct::detail::mix64(i) >> 22);
  for (uint64_t i = 0; i < 1000; ++i) keys.push_back(keys[i * 17]);  // inserted twice
  truth.insert(keys.begin(), keys.end());
  s.insert_many(keys);
  EXPECT_EQ(s.n_kmers, truth.size());
  EXPECT_EQ(s.slots_filled(), truth.size());
  for (uint64_t x : keys) ASSERT_TRUE(s.contains(x));
  for (uint64_t i = 0; i < 500000; ++i) {
    const uint64_t x = correct::detail::mix64(i + (1ULL << 40)) >> 22;
    ASSERT_EQ(s.contains(x), truth.count(x) == 1) << x;
  }
  // 100 more k-mers than the distances reach whose permuted values share one home slot.
  auto crowded = correct::KmerSpectrum::make_exact(k, n);
  ASSERT_EQ(crowded.kind, correct::KmerSpectrum::Kind::compact);
  const uint64_t home = 12345, crowd = correct::detail::compact_max_dist(crowded.rem_bits) + 100;
  std::vector<uint64_t> same_home;
  for (uint64_t rem = 0; rem < crowd; ++rem) {
    same_home.push_back(correct::detail::unpermute_bits(home << crowded.rem_bits | rem * 7, 2 * k));
  }
  crowded.insert_many({keys.begin(), keys.begin() + 1000});
  crowded.insert_many(same_home);
  EXPECT_EQ(crowded.kind, correct::KmerSpectrum::Kind::exact);
  EXPECT_EQ(crowded.n_kmers, crowd + 1000);
  EXPECT_EQ(crowded.slots_filled(), crowd + 1000);
  for (uint64_t x : same_home) ASSERT_TRUE(crowded.contains(x));
  for (uint64_t i = 0; i < 1000; ++i) ASSERT_TRUE(crowded.contains(keys[i]));
  EXPECT_FALSE(crowded.contains(keys[5000]));
  auto one_by_one = correct::KmerSpectrum::make_exact(k, n);
  for (uint64_t x : same_home) one_by_one.insert(x);
  EXPECT_EQ(one_by_one.kind, correct::KmerSpectrum::Kind::exact);
  EXPECT_EQ(one_by_one.n_kmers, crowd);
  // As many slots as 8-mers: the slot keeps the distance alone; every 8-mer asked.
  auto all_bits = correct::KmerSpectrum::make_exact(8, 40000);
  ASSERT_EQ(all_bits.kind, correct::KmerSpectrum::Kind::compact);
  ASSERT_EQ(all_bits.rem_bits, 0);
  std::vector<uint8_t> in(65536, 0);
  for (uint64_t i = 0; i < 40000; ++i) {
    const uint64_t x = correct::detail::mix64(i) & 0xffff;
    all_bits.insert(x);
    in[x] = 1;
  }
  for (uint64_t x = 0; x < in.size(); ++x) ASSERT_EQ(all_bits.contains(x), in[x] == 1) << x;
}

correct::KmerSpectrum spectrum_of(const std::vector<io::Read>& reads, const std::string& kind,
                                  uint32_t* threshold = nullptr) {
  correct::KmerCounter counter(21);
  counter.add(reads);
  const uint32_t t = correct::first_valley(counter.histogram());
  if (threshold) *threshold = t;
  return correct::build_spectrum(counter, t, kind, 1e-4);
}

// Planted errors are fixed; error-free reads are never changed.
TEST(Correct, FixesPlantedErrorsAndLeavesCleanReads) {
  for (const std::string kind : {"bloom", "exact"}) {
    for (int errors : {1, 2, 3}) {
      const auto set = test::make_correction_set(40000, 100, 40, 0.3, errors, 11 + errors);
      uint32_t threshold = 0;
      const auto spectrum = spectrum_of(set.reads, kind, &threshold);
      EXPECT_GE(threshold, 2u);
      correct::CorrectBatch b;
      for (const auto& r : set.reads) b.add(r.seq);
      correct::correct_reads_cpu(spectrum, correct::CorrectOptions{}, b);
      size_t erroneous = 0, fixed = 0, wrong_changes = 0;
      for (size_t i = 0; i < set.reads.size(); ++i) {
        const std::string out = b.sequence(i);
        if (set.reads[i].seq == set.truth[i]) {
          ASSERT_EQ(out, set.truth[i]) << "clean read " << i << " changed";
          continue;
        }
        ++erroneous;
        fixed += out == set.truth[i];
        for (size_t j = 0; j < out.size(); ++j) wrong_changes += out[j] != set.reads[i].seq[j] && out[j] != set.truth[i][j];
      }
      EXPECT_LE(wrong_changes, erroneous / 1000);
      SCOPED_TRACE(kind + " errors " + std::to_string(errors));
      EXPECT_GT(erroneous, 1000u);
      EXPECT_GT(static_cast<double>(fixed) / erroneous, errors == 1 ? 0.98 : 0.9);
    }
  }
}

// The corrector's rule written plainly, every position scored in every round: the
// oracle for the CPU twin, which skips positions that cannot reach the best vote.
std::string correct_by_full_votes(const correct::KmerSpectrum& spec, std::string read, int max_corrections) {
  const int k = spec.k, L = static_cast<int>(read.size());
  const auto window = [&](const std::string& r, int i, int* n, int* n_at) {  // the k-mer, N as A
    std::string w = r.substr(i, k);
    *n = 0, *n_at = -1;
    for (int d = 0; d < k; ++d) {
      if (w[d] == 'N') ++*n, *n_at = d, w[d] = 'A';
    }
    return w;
  };
  const auto solid = [&](const std::string& w) { return spec.contains(std::min(encode(w), encode(revcomp(w)))); };
  const std::string original = read;
  for (int round = 0;; ++round) {
    std::vector<int> weak;
    for (int i = 0; i + k <= L; ++i) {
      int n, n_at;
      const std::string w = window(read, i, &n, &n_at);
      if (n == 1 || (n == 0 && !solid(w))) weak.push_back(i);
    }
    if (weak.empty()) return read;
    if (static_cast<int>(weak.size()) > k * (max_corrections - round)) break;
    std::vector<int> votes(static_cast<size_t>(L) * 4, 0);
    for (int i : weak) {
      int n, n_at;
      std::string w = window(read, i, &n, &n_at);
      for (int d = 0; d < k; ++d) {
        if (n && d != n_at) continue;
        const char old_b = w[d];
        for (int b = 0; b < 4; ++b) {
          if ("ACGT"[b] == old_b && !n) continue;
          w[d] = "ACGT"[b];
          votes[(i + d) * 4 + b] += solid(w);
          w[d] = old_b;
        }
      }
    }
    const int best_at = static_cast<int>(std::max_element(votes.begin(), votes.end()) - votes.begin());
    const int best = votes[best_at];
    if (best == 0 || std::count(votes.begin() + best_at / 4 * 4, votes.begin() + best_at / 4 * 4 + 4, best) > 1) break;
    read[best_at / 4] = "ACGT"[best_at % 4];
  }
  // Not made solid: corrections under a window still weak are put back.
  std::vector<bool> covered(static_cast<size_t>(L), false);
  for (int i = 0; i + k <= L; ++i) {
    int n, n_at;
    const std::string w = window(read, i, &n, &n_at);
    if (n == 1 || (n == 0 && !solid(w))) std::fill(covered.begin() + i, covered.begin() + i + k, true);
  }
  for (int j = 0; j < L; ++j) {
    if (covered[j]) read[j] = original[j];
  }
  return read;
}

TEST(Correct, SameChoicesAsScoringEveryPosition) {
  for (const int errors : {1, 3, 6}) {
    auto set = test::make_correction_set(20000, 100, 30, 0.6, errors, 40 + errors);
    const auto spectrum = spectrum_of(set.reads, "bloom");
    correct::CorrectBatch b;
    for (size_t i = 0; i < 1500; ++i) {
      std::string& s = set.reads[i].seq;
      if (i % 7 == 0) s[(i * 13) % s.size()] = 'N';  // Ns too, one or two per read
      if (i % 21 == 0) s[(i * 5) % s.size()] = 'N';
      b.add(s);
    }
    correct::correct_reads_cpu(spectrum, correct::CorrectOptions{}, b);
    for (size_t i = 0; i < b.size(); ++i) {
      ASSERT_EQ(b.sequence(i),
                correct_by_full_votes(spectrum, set.reads[i].seq, correct::CorrectOptions{}.max_corrections))
          << "read " << i << " with " << errors << " errors";
    }
  }
}

// An error on the first base is covered by one window only; an N is restored.
TEST(Correct, FixesErrorsAtTheEndsAndNs) {
  auto set = test::make_correction_set(20000, 100, 30, 0, 0, 3);
  const auto spectrum = spectrum_of(set.reads, "exact");
  correct::CorrectBatch b;
  std::vector<std::string> want;
  for (int i = 0; i < 50; ++i) {
    std::string s = set.truth[i];
    want.push_back(s);
    const size_t p = i % 3 == 0 ? 0 : i % 3 == 1 ? s.size() - 1 : 50;
    s[p] = i % 3 == 2 ? 'N' : (s[p] == 'A' ? 'C' : 'A');
    b.add(s);
  }
  correct::correct_reads_cpu(spectrum, correct::CorrectOptions{}, b);
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(b.sequence(i), want[i]) << i;
    EXPECT_EQ(b.status[i], static_cast<uint8_t>(correct::CorrectStatus::corrected));
    EXPECT_EQ(b.changed[i], 1);
  }
}

// An indel a few bases from an end: substitutions could make the end's k-mers solid by
// rewriting it as the genome beside it (the read shifted), which is not what the read
// holds. The rewrite is undone; a substitution error elsewhere in the read is still fixed.
TEST(Correct, IndelNearAnEndIsNotRewritten) {
  auto set = test::make_correction_set(20000, 100, 30, 0, 0, 4);
  const auto spectrum = spectrum_of(set.reads, "exact");
  correct::CorrectBatch b;
  std::vector<std::string> want;
  for (int i = 0; i < 60; ++i) {
    std::string read = set.genome.substr(100 + 37 * i, 102);
    const bool left = i % 2 == 0;
    const int at = 9 + i % 6;  // the indel's distance from the end (a rewrite would change 3 bases or more)
    if (i % 4 < 2) {
      read.insert(left ? at : read.size() - at, 1, 'A');  // an insertion
    } else {
      read.erase(left ? at : read.size() - at, 1);  // a deletion
    }
    read = left ? read.substr(read.size() - 100) : read.substr(0, 100);
    want.push_back(read);  // the indel kept, the substitution below fixed
    read[50] = read[50] == 'A' ? 'C' : 'A';
    b.add(read);
  }
  correct::correct_reads_cpu(spectrum, correct::CorrectOptions{}, b);
  for (int i = 0; i < 60; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(b.sequence(i), want[i]);
    EXPECT_EQ(b.status[i], static_cast<uint8_t>(correct::CorrectStatus::corrected));
  }
}

// The rule itself: the segment of an end that is the original shifted is put back, three
// substitutions at an end that are no shift stay.
TEST(Correct, UndoIndelShiftsOnlyUndoesShifts) {
  const auto codes_of = [](const std::string& s) {
    std::vector<uint8_t> c;
    for (char ch : s) c.push_back(base_code(ch));
    return c;
  };
  const std::string original = "ACGTTGCAGGCTAGCTTACGGATCCAGTGCA";
  std::string shifted = original;  // the first 8 bases as the original shifted by one (an insertion at 7)
  for (int j = 1; j < 8; ++j) shifted[j] = original[j - 1];
  shifted[0] = 'T';
  auto c = codes_of(shifted);
  const auto o = codes_of(original);
  EXPECT_TRUE(correct::detail::undo_indel_shifts(c.data(), o.data(), 31, 21));
  EXPECT_EQ(c, o);
  std::string substituted = original;  // three errors at the right end, no shift
  substituted[30] = 'T', substituted[28] = 'C', substituted[26] = 'A';
  c = codes_of(substituted);
  EXPECT_FALSE(correct::detail::undo_indel_shifts(c.data(), o.data(), 31, 21));
  EXPECT_EQ(c, codes_of(substituted));
  std::string two = original;  // two changes: never enough
  for (int j = 1; j < 3; ++j) two[j] = original[j - 1];
  c = codes_of(two);
  EXPECT_FALSE(correct::detail::undo_indel_shifts(c.data(), o.data(), 31, 21));
}

// The command end to end on pairs: order, names, qualities kept, errors removed.
TEST(Correct, CommandKeepsPairsAndOrder) {
  test::TempDir dir;
  const auto set = test::make_correction_set(30000, 100, 30, 0.5, 1, 9);
  std::string fq1, fq2, t1;
  for (size_t i = 0; i + 1 < set.reads.size(); i += 2) {
    fq1 += "@" + set.reads[i].name + "/1\n" + set.reads[i].seq + "\n+\n" + set.reads[i].qual + "\n";
    fq2 += "@" + set.reads[i].name + "/2\n" + set.reads[i + 1].seq + "\n+\n" + set.reads[i + 1].qual + "\n";
  }
  test::write_file(dir.file("a_1.fq"), fq1);
  test::write_file(dir.file("a_2.fq"), fq2);
  correct::CorrectRunOptions o;
  o.in1 = dir.file("a_1.fq"), o.in2 = dir.file("a_2.fq");
  o.out1 = dir.file("c_1.fq.gz"), o.out2 = dir.file("c_2.fq.gz");
  o.backend = "cpu";
  o.keep_reads_gb = 4;
  const auto sum = correct::run_correct(o);
  EXPECT_EQ(sum.reads, static_cast<int64_t>(set.reads.size() / 2 * 2));
  EXPECT_GT(sum.reads_changed, 0);
  // Reading the files again (reads not kept in memory) gives the same output.
  correct::CorrectRunOptions again = o;
  again.keep_reads_gb = 0;
  again.out1 = dir.file("d_1.fq"), again.out2 = dir.file("d_2.fq");
  correct::run_correct(again);
  for (const auto& [a, b] : {std::pair{o.out1, again.out1}, std::pair{o.out2, again.out2}}) {
    io::FastqReader x(a), y(b);
    io::Read rx, ry;
    while (x.next(rx)) {
      ASSERT_TRUE(y.next(ry));
      ASSERT_EQ(rx.seq, ry.seq);
    }
    EXPECT_FALSE(y.next(ry));
  }
  io::FastqSource out(o.out1, o.out2);
  io::ReadBatch batch;
  size_t i = 0, wrong = 0;
  while (out.next_batch(batch, 1000, 1000000)) {
    for (const auto& r : batch.reads) {
      ASSERT_EQ(r.name, set.reads[i - i % 2].name);  // both mates carry the pair's name
      ASSERT_EQ(r.qual, set.reads[i].qual);
      wrong += r.seq != set.truth[i];
      ++i;
    }
  }
  EXPECT_EQ(i, set.reads.size() / 2 * 2);
  EXPECT_LT(wrong, i / 100);
}

// A table over its budget narrows to half its part and hands the other half back; the
// parts, counted one after another from replays of the reads, give exactly the counts,
// the histogram, the threshold and the spectrum of one unbounded table.
// With the seen-twice filter (small on purpose: some k-mers seen once get through) the
// table holds every k-mer seen twice or more with its exact count, and the distinct
// k-mers and the histogram are still exact.
TEST(KmerCounter, SeenOnceFilterKeepsCountsAndHistogramExact) {
  sim::Rng rng(9);
  std::vector<io::Read> reads;
  for (int r = 0; r < 600; ++r) {  // random reads, the first 200 twice or three times
    std::string s(30 + rng.below(60), 'A');
    for (char& c : s) c = rng.uniform() < 0.01 ? 'N' : "ACGT"[rng.below(4)];
    reads.push_back({"r", s, std::string(s.size(), 'I'), ""});
  }
  for (int r = 0; r < 300; ++r) reads.push_back(reads[r % 200]);
  for (int k : {11, 21, 31}) {
    SCOPED_TRACE(k);
    correct::KmerCounter all(k), filtered(k, 0, 1 << 17);
    all.add(reads);
    filtered.look(reads);
    filtered.add(std::vector<io::Read>(reads.begin(), reads.begin() + 123));
    filtered.add(std::vector<io::Read>(reads.begin() + 123, reads.end()));
    EXPECT_EQ(filtered.total(), all.total());
    EXPECT_EQ(filtered.distinct(), all.distinct());
    EXPECT_EQ(filtered.histogram(255), all.histogram(255));
    uint64_t once = 0, once_kept = 0, twice = 0;
    all.for_each_counted(1, [&](uint64_t x, uint32_t c) {
      if (c >= 2) {
        ++twice;
        ASSERT_EQ(filtered.count(x), c);
      } else {
        ++once;
        once_kept += filtered.count(x) == 1;
      }
    });
    EXPECT_GT(twice, 1000u);
    EXPECT_GT(once, 5000u);
    EXPECT_LT(once_kept, once / 2) << "the filter should leave most k-mers seen once out";
    EXPECT_EQ(filtered.take_solid(2).size(), twice);
  }
}

// A count saturates at kMaxCount; the k-mers beside it keep theirs.
TEST(KmerCounter, CountsSaturateAtTheirMaximum) {
  const std::string often(40, 'A');
  std::vector<io::Read> reads(60, io::Read{"r", often, std::string(40, 'I'), ""});  // AAA..: 20 windows a read
  reads.push_back({"r", "ACGTTGCAAGGCTTACGATCC", std::string(21, 'I'), ""});
  correct::KmerCounter counter(21);
  counter.add(reads);
  EXPECT_EQ(counter.count(encode(std::string(21, 'A'))), correct::KmerCounter::kMaxCount);
  EXPECT_EQ(counter.count(std::min(encode("ACGTTGCAAGGCTTACGATCC"), encode(revcomp("ACGTTGCAAGGCTTACGATCC")))), 1u);
  EXPECT_EQ(counter.total(), 60u * 20 + 1);
}

TEST(KmerCounter, PartsInABudgetEqualOneUnboundedTable) {
  test::TempDir dir;
  const auto set = test::make_correction_set(60000, 100, 30, 0.6, 2, 17);
  test::write_file(dir.file("in.fq"), test::fastq_of(set));
  correct::KmerCounter whole(21);
  whole.add(set.reads);
  for (const double keep_gb : {4.0, 0.0}) {  // reads kept in memory, or read again from the file
    correct::ReadInput input(dir.file("in.fq"), "", 3000, keep_gb, 2);
    correct::KmerCounter bounded(21, size_t(2) << 20, keep_gb > 0 ? 0 : 1 << 16);  // filtered too: same counts
    correct::CountStats stats;
    const auto spectrum = correct::count_and_build_spectrum(bounded, input, {0, "bloom", 1e-3}, stats);
    SCOPED_TRACE(keep_gb);
    EXPECT_GE(stats.parts, 4);
    // Each part counted once; the solid k-mers come from the counts kept in files.
    EXPECT_EQ(stats.rounds, 1);
    EXPECT_EQ(input.passes(), stats.parts + (bounded.looks_first() ? 1 : 0));  // the filter looks first
    EXPECT_LE(bounded.bytes(), size_t(3) << 20);
    EXPECT_EQ(stats.kmers, whole.total());
    EXPECT_EQ(stats.distinct, whole.distinct());
    EXPECT_EQ(stats.histogram, whole.histogram());
    EXPECT_EQ(stats.threshold, correct::first_valley(whole.histogram()));
    EXPECT_GE(stats.threshold, 2u);
    const auto expected = correct::build_spectrum(whole, stats.threshold, "bloom", 1e-3);
    EXPECT_EQ(spectrum.n_kmers, expected.n_kmers);
    EXPECT_EQ(spectrum.words, expected.words);  // a Bloom filter does not depend on insertion order
    auto serial = correct::KmerSpectrum::make_bloom(21, expected.n_kmers, 1e-3);  // one k-mer at a time
    whole.for_each_solid(stats.threshold, [&](uint64_t x) { serial.insert(x); });
    EXPECT_EQ(serial.words, expected.words);
  }
}

// In a 1 MiB budget the parts' k-mers seen twice or more are kept with their counts in
// temporary files, and the spectrum is taken from them: one pass over the reads per part.
// Without a usable $TMPDIR a second round of passes collects it. Either way the spectrum
// is the unbounded table's.
TEST(KmerCounter, KeptCountsOrASecondRoundGiveTheUnboundedSpectrum) {
  test::TempDir dir;
  const char* tmpdir = std::getenv("TMPDIR");
  const std::string saved = tmpdir ? tmpdir : "";
  for (const bool files : {true, false}) {
    if (!files) setenv("TMPDIR", dir.file("no/such/folder").c_str(), 1);
    for (int seed = 1; seed <= 3; ++seed) {
      const auto set = test::make_correction_set(60000, 100, 13, 0.6, 2, seed);
      test::write_file(dir.file("in.fq"), test::fastq_of(set));
      correct::KmerCounter whole(21);
      whole.add(set.reads);
      correct::ReadInput input(dir.file("in.fq"), "", 3000, 4, 2);
      correct::KmerCounter bounded(21, size_t(1) << 20);
      correct::CountStats stats;
      const auto spectrum = correct::count_and_build_spectrum(bounded, input, {0, "bloom", 1e-3}, stats);
      SCOPED_TRACE(std::to_string(seed) + (files ? " with files" : " without"));
      ASSERT_GT(stats.parts, 1);
      EXPECT_EQ(stats.rounds, files ? 1 : 2);
      EXPECT_EQ(input.passes(), stats.parts * stats.rounds);
      EXPECT_EQ(stats.threshold, correct::first_valley(whole.histogram()));
      EXPECT_EQ(spectrum.words, correct::build_spectrum(whole, stats.threshold, "bloom", 1e-3).words);
    }
  }
  if (tmpdir) {
    setenv("TMPDIR", saved.c_str(), 1);
  } else {
    unsetenv("TMPDIR");
  }
}

// The command in a small count budget writes what it writes unbounded.
TEST(Correct, CountMemoryBudgetKeepsTheOutput) {
  test::TempDir dir;
  const auto set = test::make_correction_set(60000, 100, 30, 0.5, 1, 21);
  test::write_file(dir.file("in.fq"), test::fastq_of(set));
  correct::CorrectRunOptions o;
  o.in1 = dir.file("in.fq");
  o.out1 = dir.file("whole.fq");
  o.backend = "cpu";
  const auto whole = correct::run_correct(o);
  o.out1 = dir.file("parts.fq");
  o.count_mem = size_t(1) << 20;
  o.keep_reads_gb = 0;
  const auto parts = correct::run_correct(o);
  EXPECT_EQ(whole.count_parts, 1);
  EXPECT_GT(parts.count_parts, 1);
  // The filter's look, one pass per part (the solid k-mers from the kept counts), the correction.
  EXPECT_EQ(parts.read_passes, 1 + parts.count_parts + 1);
  EXPECT_EQ(parts.threshold, whole.threshold);
  EXPECT_EQ(parts.solid_kmers, whole.solid_kmers);
  EXPECT_GT(whole.reads_changed, 0);
  EXPECT_EQ(test::read_file(o.out1), test::read_file(dir.file("whole.fq")));
}

TEST(Correct, RejectsBadOptions) {
  correct::CorrectRunOptions o;
  o.in1 = "x.fq";
  o.out1 = "y.fq";
  o.k = 40;
  EXPECT_THROW(correct::run_correct(o), UsageError);
  o.k = 21;
  o.in2 = "x2.fq";  // no -p
  EXPECT_THROW(correct::run_correct(o), UsageError);
}

}  // namespace
}  // namespace gatemap

namespace gatemap {
namespace {

// The corrector reads a file input twice: a file replaced or cut between the passes is an
// error naming it, never half the reads written as if that were all.
TEST(CorrectInput, AFileChangedBetweenPassesIsAnError) {
  test::TempDir dir;
  const auto set = test::make_correction_set(30000, 100, 20, 0.5, 1, 5);
  const std::string text = test::fastq_of(set);
  test::write_file(dir.file("in.fq"), text);
  correct::ReadInput input(dir.file("in.fq"), "", 1000, 0.0, 2);  // keep nothing: read again from the file
  int64_t first = 0;
  input.first_pass([&](const io::ReadBatch& b) { first += static_cast<int64_t>(b.size()); });
  EXPECT_EQ(first, static_cast<int64_t>(set.reads.size()));
  int64_t again = 0;
  input.replay([&](io::ReadBatch& b) { again += static_cast<int64_t>(b.size()); });  // unchanged: fine
  EXPECT_EQ(again, first);
  test::write_file(dir.file("in.fq"), text.substr(0, text.size() / 2));  // cut in place
  try {
    input.replay([](io::ReadBatch&) {});
    FAIL() << "no error";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("in.fq' changed after correct read it"), std::string::npos) << e.what();
  }
}

// The first reading parses batches on several lanes at once: the batches still reach the
// count in input order, and of two bad records in different batches the first is the
// one named (a later batch may be parsed first).
TEST(CorrectInput, ParsingLanesKeepOrderAndNameTheFirstBadRecord) {
  test::TempDir dir;
  const auto set = test::make_correction_set(20000, 100, 20, 0.5, 1, 5);
  test::write_file(dir.file("in.fq"), test::fastq_of(set));
  correct::ReadInput input(dir.file("in.fq"), "", 100, 0.0, 16);  // 16 threads: 4 lanes
  std::vector<std::string> names;
  input.first_pass([&](const io::ReadBatch& b) {
    for (const io::Read& r : b.reads) names.push_back(r.name);
  });
  ASSERT_EQ(names.size(), set.reads.size());
  for (size_t i = 0; i < names.size(); ++i) ASSERT_EQ(names[i], set.reads[i].name) << i;

  std::string text;
  for (size_t i = 0; i < set.reads.size(); ++i) {
    const io::Read& r = set.reads[i];
    const bool bad = i == 1299 || i == 1300;  // the last of batch 12 and the first of 13 (100 reads each)
    text += "@" + r.name + "\n" + r.seq + "\n+\n" + (bad ? r.qual.substr(1) : r.qual) + "\n";
  }
  test::write_file(dir.file("bad.fq"), text);
  for (int round = 0; round < 10; ++round) {  // lanes race: the later batch's error may come first
    correct::ReadInput bad(dir.file("bad.fq"), "", 100, 0.0, 16);
    try {
      bad.first_pass([](const io::ReadBatch&) {});
      FAIL() << "no error";
    } catch (const FormatError& e) {
      EXPECT_NE(std::string(e.what()).find("record 1300 "), std::string::npos) << e.what();
    }
  }
}

// A file's bytes, gzip or BGZF inflated (zlib reads plain files as they are).
std::string inflated(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) return "";
  std::string out;
  char buf[1 << 16];
  for (int n; (n = gzread(f, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  gzclose(f);
  return out;
}

// The reads kept from the first reading as the text the correction pass writes give the
// same bytes as reading the files again: pairs with /1 /2 and comments, lowercase and
// IUPAC bases, plain and bgzip output, and single reads; one reading fewer. FASTA input
// keeps nothing and is the same error either way.
TEST(Correct, KeptTextWritesTheSameBytesAsReadingAgain) {
  test::TempDir dir;
  const auto set = test::make_correction_set(30000, 100, 30, 0.5, 1, 17);
  std::string fq1, fq2;
  for (size_t i = 0; i + 1 < set.reads.size(); i += 2) {
    std::string s1 = set.reads[i].seq, s2 = set.reads[i + 1].seq;
    if (i % 10 == 0) s1[5] = 'a', s2[7] = 'R';  // written back uppercase, R as N
    const std::string comment = i % 4 == 0 ? " BX:Z:A-" + std::to_string(i) : "";
    fq1 += "@" + set.reads[i].name + "/1" + comment + "\n" + s1 + "\n+\n" + set.reads[i].qual + "\n";
    fq2 += "@" + set.reads[i].name + "/2" + comment + "\n" + s2 + "\n+\n" + set.reads[i + 1].qual + "\n";
  }
  test::write_file(dir.file("a_1.fq"), fq1);
  test::write_file(dir.file("a_2.fq"), fq2);
  for (const std::string ext : {".fq", ".fq.gz"}) {
    correct::CorrectRunOptions again;
    again.in1 = dir.file("a_1.fq"), again.in2 = dir.file("a_2.fq");
    again.out1 = dir.file("again_1" + ext), again.out2 = dir.file("again_2" + ext);
    again.backend = "cpu";
    again.keep_text_gb = 0;
    const auto read_again = correct::run_correct(again);
    correct::CorrectRunOptions kept = again;
    kept.keep_text_gb = 1;
    kept.out1 = dir.file("kept_1" + ext), kept.out2 = dir.file("kept_2" + ext);
    const auto from_text = correct::run_correct(kept);
    EXPECT_GT(from_text.reads_changed, 0);
    EXPECT_EQ(from_text.reads_changed, read_again.reads_changed);
    EXPECT_EQ(from_text.bases_changed, read_again.bases_changed);
    EXPECT_EQ(from_text.read_passes + 1, read_again.read_passes);
    for (int m : {1, 2}) {
      EXPECT_EQ(inflated(dir.file("kept_" + std::to_string(m) + ext)),
                inflated(dir.file("again_" + std::to_string(m) + ext)))
          << ext << " mate " << m;
    }
  }
  // .gz output at another level (-l 1): other bytes, the same reads.
  correct::CorrectRunOptions fast;
  fast.in1 = dir.file("a_1.fq"), fast.in2 = dir.file("a_2.fq");
  fast.out1 = dir.file("l1_1.fq.gz"), fast.out2 = dir.file("l1_2.fq.gz");
  fast.backend = "cpu";
  fast.keep_text_gb = 1;
  fast.gz_level = 1;
  correct::run_correct(fast);
  for (int m : {1, 2}) {
    const std::string level1 = dir.file("l1_" + std::to_string(m) + ".fq.gz");
    const std::string level6 = dir.file("kept_" + std::to_string(m) + ".fq.gz");
    EXPECT_EQ(inflated(level1), inflated(level6)) << m;
    EXPECT_GT(test::read_file(level1).size(), test::read_file(level6).size()) << m;
  }
  correct::CorrectRunOptions single;
  single.in1 = dir.file("a_1.fq");
  single.out1 = dir.file("single_again.fq");
  single.backend = "cpu";
  single.keep_text_gb = 0;
  correct::run_correct(single);
  single.keep_text_gb = 1;
  single.out1 = dir.file("single_kept.fq");
  correct::run_correct(single);
  EXPECT_EQ(test::read_file(dir.file("single_kept.fq")), test::read_file(dir.file("single_again.fq")));
  // FASTA: no text kept; the correction pass's error, as without keeping.
  std::string fa;
  for (size_t i = 0; i < 2000; ++i) fa += ">r" + std::to_string(i) + "\n" + set.reads[i].seq + "\n";
  test::write_file(dir.file("in.fa"), fa);
  single.in1 = dir.file("in.fa");
  single.out1 = dir.file("fa.fq");
  single.threshold = 2;
  try {
    correct::run_correct(single);
    FAIL() << "FASTA input corrected";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("needs FASTQ input"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gatemap
