// The caller's records: the VCF header and, in order, each window's calls (kept for the
// run's writer when calling in parts) and a gVCF's reference blocks between them.
#include "caller/window_caller.hpp"

#include "caller/vcf_records.hpp"
#include "common/error.hpp"

namespace gatemap::caller {

// The header of the run's VCF: the reference's contigs, the samples, the fields written.
io::VcfHeaderInfo vcf_header(const CallOptions& opt, const Reference& ref, const std::vector<std::string>& samples) {
  io::VcfHeaderInfo info;
  for (const auto& r : ref) info.contigs.emplace_back(r.name, static_cast<int64_t>(r.seq.size()));
  info.reference = opt.reference;
  info.command_line = opt.command_line;
  info.version = opt.version;
  info.samples = samples;
  info.extra_lines = detail::site_header_lines(opt.gvcf);
  if (opt.gvcf) {
    const auto lines = gvcf_header_lines();
    info.extra_lines.insert(info.extra_lines.end(), lines.begin(), lines.end());
  }
  return info;
}

void WindowCaller::write(int tid, const detail::SiteCall& c) {
  if (part_) {
    part_->calls.emplace_back(ref_index_.at(input_.contigs()[tid]), c);
    return;
  }
  detail::write_site(*vcf_, bcf_hdr_name2id(vcf_->header(), input_.contigs()[tid].c_str()), c, opt_.gvcf,
                     opt_.min_qd);
}

void WindowCaller::emit(const PendingWindow& w, const std::vector<detail::SiteCall>& calls) {
  const int tid = w.tid;
  if (!blocks_) {
    for (const detail::SiteCall& c : calls) write(tid, c);
    return;
  }
  const std::string& seq = contig_seq(tid);
  const int64_t b = w.conf_begin, e = w.conf_end;
  const RefConfidence& conf = w.conf;
  const int rid = bcf_hdr_name2id(vcf_->header(), input_.contigs()[tid].c_str());
  size_t k = 0;
  const auto write_call = [&] {
    blocks_->flush();
    write(tid, calls[k]);
    covered_until_ = std::max(covered_until_, calls[k].site.pos + static_cast<int64_t>(calls[k].alleles[0].size()));
    ++k;
  };
  auto hint = conf.hints.begin();
  for (int64_t p = b; p < e; ++p) {
    while (k < calls.size() && calls[k].site.pos <= p) write_call();
    const bool hinted = hint != conf.hints.end() && hint->pos == p;
    if (p < covered_until_) {  // inside a variant record's reference allele
      hint += hinted;
      continue;
    }
    if (hinted) {
      blocks_->add_hint(rid, upper(seq[p]), *hint++);
    } else {
      blocks_->add(rid, p, upper(seq[p]), conf.dp[p - b], conf.gq[p - b], conf.pl[p - b]);
    }
  }
  while (k < calls.size()) write_call();  // only where a window-long cluster was called cut
}

void WindowCaller::emit_uncovered(int c, int64_t begin, int64_t end) {
  if (!blocks_ || begin >= end) return;
  write_in_order([this, c, begin, end] {
    const int rid = bcf_hdr_name2id(vcf_->header(), ref_[c].name.c_str());
    for (int64_t p = begin; p < end; ++p) blocks_->add(rid, p, upper(ref_[c].seq[p]), 0, 0, {0, 0, 0});
    blocks_->flush();
  });
}

}  // namespace gatemap::caller
