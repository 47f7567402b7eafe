#include "mapper/insert_model.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "common/error.hpp"
#include "common/log.hpp"

namespace gatemap::mapper::detail {

InsertModel::InsertModel(const PairOptions& opt) {
  if (opt.insert_mean <= 0) return;
  known_ = true;
  mean_ = opt.insert_mean;
  sd_ = opt.insert_sd > 0 ? opt.insert_sd : 0.1 * opt.insert_mean;
  set_bounds(mean_ - 4 * sd_, mean_ + 4 * sd_);
}

void InsertModel::estimate(const std::vector<ReadHits>& hits, int64_t fragments) {
  std::vector<double> inserts;
  for (int64_t f = 0; f < fragments; ++f) {
    const ReadHits& a = hits[2 * f];
    const ReadHits& b = hits[2 * f + 1];
    if (a.size() != 1 || b.size() != 1) continue;
    const Hit& x = a[0];
    const Hit& y = b[0];
    if (x.contig != y.contig || x.strand == y.strand) continue;
    const int64_t insert = insert_of(x, y);
    if (insert > 0 && insert < 10000) inserts.push_back(static_cast<double>(insert));
  }
  if (inserts.size() < 30) {  // too few this batch: be tolerant, try again next batch
    mean_ = 500;
    sd_ = 250;
    set_bounds(0, 1500);
    return;
  }
  // As bwa-mem: mean and sd of the inserts within 2 IQR of the quartiles; proper pairs
  // within 3 IQR of the quartiles or 4 sd of the mean, whichever is wider.
  std::sort(inserts.begin(), inserts.end());
  const double p25 = inserts[inserts.size() / 4], p75 = inserts[inserts.size() * 3 / 4], iqr = p75 - p25;
  double sum = 0, sum2 = 0;
  int64_t kept = 0;
  for (double v : inserts) {
    if (v < p25 - 2 * iqr || v > p75 + 2 * iqr) continue;
    sum += v;
    sum2 += v * v;
    ++kept;
  }
  mean_ = sum / static_cast<double>(kept);
  sd_ = std::max(1.0, std::sqrt(std::max(0.0, sum2 / static_cast<double>(kept) - mean_ * mean_)));
  set_bounds(std::min(p25 - 3 * iqr, mean_ - 4 * sd_), std::max(p75 + 3 * iqr, mean_ + 4 * sd_));
  known_ = true;
  log::info("map", "insert size: mean " + std::to_string(static_cast<int>(mean_)) + ", sd " +
                       std::to_string(static_cast<int>(sd_)) + ", proper pairs within [" + std::to_string(low_) + ", " +
                       std::to_string(high_) + "], from " + std::to_string(inserts.size()) + " pairs");
}

void InsertModel::set_bounds(double low, double high) {
  low_ = std::max<int64_t>(1, std::llround(low));
  high_ = std::max<int64_t>(low_, std::llround(high));
}

int64_t InsertModel::insert_of(const Hit& a, const Hit& b) {
  const Hit& fwd = a.strand == 0 ? a : b;
  const Hit& rev = a.strand == 0 ? b : a;
  return rev.ref_end - fwd.diag;
}

bool InsertModel::proper(const Hit& a, const Hit& b) const {
  if (a.contig != b.contig || a.strand == b.strand) return false;
  const int64_t insert = insert_of(a, b);
  return insert >= low_ && insert <= high_;  // low_ >= 1
}

int InsertModel::pair_score(const Hit& a, const Hit& b) const {
  const double z = (static_cast<double>(insert_of(a, b)) - mean_) / sd_;
  const int insert_phred = std::min(kMaxInsertPhred, static_cast<int>(std::lround(5 * z * z / std::log(10.0))));
  return kEditPhred * (a.edits + b.edits) + insert_phred;
}

InsertModelInOrder::InsertModelInOrder(const PairOptions& opt, bool shared)
    : shared_(shared), known_(opt) {}

InsertModel InsertModelInOrder::for_batch(int64_t first_id, int64_t fragments, const std::vector<ReadHits>& hits,
                                          bool paired) {
  std::unique_lock<std::mutex> lock(m_);
  if (shared_) cv_.wait(lock, [&] { return known_.known() || decided_until_ >= first_id || abandoned_; });
  if (abandoned_) throw Error("mapping stopped: another lane failed");
  InsertModel model = known_;
  if (!model.known() && paired) {
    model.estimate(hits, fragments);
    if (model.known()) known_ = model;
  }
  decided_until_ = std::max(decided_until_, first_id + fragments);
  lock.unlock();
  cv_.notify_all();
  return model;
}

void InsertModelInOrder::skip(int64_t first_id, int64_t fragments) {
  {
    const std::lock_guard<std::mutex> lock(m_);
    decided_until_ = std::max(decided_until_, first_id + fragments);
  }
  cv_.notify_all();
}

void InsertModelInOrder::abandon() {
  {
    const std::lock_guard<std::mutex> lock(m_);
    abandoned_ = true;
  }
  cv_.notify_all();
}

}  // namespace gatemap::mapper::detail
