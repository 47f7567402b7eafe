#pragma once
// The insert-size model of paired reads: given (--insert) or estimated from the first
// batch's confidently placed pairs as bwa-mem estimates it; which FR pairs are proper,
// and how much an insert size costs a pair in phred units.
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

#include "mapper/base/options.hpp"
#include "mapper/base/types.hpp"

namespace gatemap::mapper::detail {

class InsertModel {
 public:
  explicit InsertModel(const PairOptions& opt);

  bool known() const { return known_; }
  // From fragments whose mates each have exactly one hit (hits of read 2f and 2f+1).
  // Fewer than 30 such pairs: a tolerant model, estimated again on the next batch.
  void estimate(const std::vector<ReadHits>& hits, int64_t fragments);

  // The insert of two hits on opposite strands: from the forward mate's first base to
  // the reverse mate's end.
  static int64_t insert_of(const Hit& a, const Hit& b);
  // FR pairs on one contig with an insert within the proper-pair bounds.
  bool proper(const Hit& a, const Hit& b) const;
  // A pair's score in phred units: kEditPhred per edit plus how improbable its insert is
  // under a normal model (-10 log10 of the density ratio to the mean, at most
  // kMaxInsertPhred), so that pairs tied on edits, as in a tandem repeat, are told apart
  // by their insert size, and an edit weighs against an unusual insert, as in bwa-mem.
  int pair_score(const Hit& a, const Hit& b) const;

  double mean() const { return mean_; }
  double sd() const { return sd_; }
  int64_t low() const { return low_; }  // proper pairs' inserts: [low, high]
  int64_t high() const { return high_; }

 private:
  void set_bounds(double low, double high);

  bool known_ = false;
  double mean_ = 0, sd_ = 0;
  int64_t low_ = 0, high_ = 0;
};

// The model each batch places its pairs with, as one mapper finishing batches in input
// order would have it: the first batch's estimate (or the first with enough pairs, each
// batch before it estimating its own tolerant model). Shared by mappers running at once
// (one per GPU), a batch waits until the batches before it have decided, unless a model
// is known already.
class InsertModelInOrder {
 public:
  // `shared`: batches come from several mappers, in any order; otherwise in input order.
  InsertModelInOrder(const PairOptions& opt, bool shared);
  // The model of the batch of `fragments` fragments whose first has input number
  // `first_id` (hits: per read, mates adjacent; paired: whether to estimate from them).
  InsertModel for_batch(int64_t first_id, int64_t fragments, const std::vector<ReadHits>& hits, bool paired);
  // A mapper failed: batches waiting for its batches throw instead.
  void abandon();
  // A batch that is not mapped (its reads did not parse: the run fails once the batches
  // before it are written): the batches after it do not wait for it.
  void skip(int64_t first_id, int64_t fragments);

 private:
  const bool shared_;
  std::mutex m_;
  std::condition_variable cv_;
  InsertModel known_;         // once known_.known()
  int64_t decided_until_ = 0;  // batches of fragments before this have decided
  bool abandoned_ = false;
};

}  // namespace gatemap::mapper::detail
