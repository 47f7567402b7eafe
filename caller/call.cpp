// The caller's run: reads stream in by position; each window of the contig is turned
// into active regions (a region cut by the window's end waits for the next window),
// the regions are assembled in parallel, all their read x haplotype pairs go to the
// pair-HMM engine in one batch (one group per region), and the sites are genotyped and
// written in order.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>

#include "caller/caller.hpp"
#include "caller/detail.hpp"
#include "caller/input.hpp"
#include "caller/pairhmm/pairhmm.hpp"
#include "common/error.hpp"
#include "common/log.hpp"
#include "common/parallel.hpp"
#include "io/fasta.hpp"
#include "io/output_file.hpp"
#include "io/vcf_writer.hpp"

namespace gatemap::caller {

namespace {

using detail::AlignedRead;
using detail::Event;
using detail::Region;

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct RegionWork {
  Region region;
  std::vector<std::string> slices;
  std::vector<std::vector<uint8_t>> quals;
  std::vector<std::string> haps;
  std::vector<std::vector<Event>> events;  // per haplotype
  int32_t group = -1;                      // in the pair-HMM batch
  bool assembled = true;                   // false: haplotypes from the reads' alignments
};

struct Record {
  int64_t pos;
  int64_t away;  // distance from the region's core (0: inside)
  detail::SiteCall call;
};

class Caller {
 public:
  explicit Caller(const CallOptions& opt)
      : opt_(opt), ref_(io::read_fasta(opt.reference)), input_(opt.inputs, opt.min_mapq) {
    for (size_t i = 0; i < ref_.size(); ++i) ref_index_[ref_[i].name] = static_cast<int>(i);
    // Header contigs the reference lacks are fine as long as no read is placed on them
    // (reads that are get skipped and counted, with a warning).
    int missing = 0;
    for (size_t c = 0; c < input_.contigs().size(); ++c) {
      const std::string& name = input_.contigs()[c];
      const auto it = ref_index_.find(name);
      if (it == ref_index_.end()) {
        ++missing;
        continue;
      }
      const int64_t ref_len = static_cast<int64_t>(ref_[it->second].seq.size());
      if (ref_len != input_.contig_lengths()[c]) {  // another assembly: every call would be wrong
        throw FormatError("contig '" + name + "' is " + std::to_string(input_.contig_lengths()[c]) + " bp in '" +
                          opt.inputs.front() + "' but " + std::to_string(ref_len) + " bp in '" + opt.reference +
                          "': use the reference the reads were mapped to");
      }
    }
    if (missing == static_cast<int>(input_.contigs().size())) {
      throw FormatError("no contig of '" + opt.inputs.front() + "' is in '" + opt.reference +
                        (input_.contigs().empty() ? "' (no @SQ lines: is it a SAM/BAM of mapped reads?)" : "'"));
    }
    if (missing) {
      log::warn("call", std::to_string(missing) + " of the reads' " + std::to_string(input_.contigs().size()) +
                            " header contigs are not in '" + opt.reference + "'; reads placed there are skipped");
    }
    io::VcfHeaderInfo info;
    for (const auto& r : ref_) info.contigs.emplace_back(r.name, static_cast<int64_t>(r.seq.size()));
    info.reference = opt.reference;
    info.command_line = opt.command_line;
    info.version = opt.version;
    info.samples = {input_.sample()};
    info.extra_lines = {"##INFO=<ID=DP,Number=1,Type=Integer,Description=\"Reads in the active region over the site\">",
                        "##FORMAT=<ID=GT,Number=1,Type=String,Description=\"Genotype\">",
                        "##FORMAT=<ID=GQ,Number=1,Type=Integer,Description=\"Genotype quality\">",
                        "##FORMAT=<ID=DP,Number=1,Type=Integer,Description=\"Reads scored at the site\">",
                        "##FORMAT=<ID=AD,Number=R,Type=Integer,Description=\"Informative reads per allele\">",
                        "##FORMAT=<ID=PL,Number=G,Type=Integer,Description=\"Phred-scaled genotype likelihoods\">"};
    vcf_ = std::make_unique<io::VcfWriter>(opt.output, info);
    engine_ = std::make_unique<pairhmm::PairHmmEngine>(gpu::choose_backend(opt.backend));
    stats_.backend = gpu::backend_name(engine_->backend());
  }

  CallStats run() {
    const auto t0 = std::chrono::steady_clock::now();
    int tid = -1, cur = -1;
    AlignedRead r;
    while (input_.next(tid, r)) {
      if (!ref_index_.count(input_.contigs()[tid])) {
        ++skipped_no_ref_;
        continue;
      }
      if (tid != cur) {
        if (cur >= 0) finish_contig(cur);
        cur = tid, ws_ = 0, last_written_ = -1;
        reads_.clear();
      }
      // Keep the window open until reads start past its end (plus a read's reach).
      while (r.pos >= ws_ + opt_.window + 2000) process_window(cur, false);
      reads_.push_back(std::move(r));
      r = AlignedRead();
    }
    if (cur >= 0) finish_contig(cur);
    vcf_->close();
    if (skipped_no_ref_) {
      log::warn("call", std::to_string(skipped_no_ref_) + " reads on contigs missing from the reference were skipped");
    }
    stats_.reads = input_.seen();
    stats_.reads_filtered = input_.filtered() + skipped_no_ref_;
    stats_.total_s = since(t0);
    return stats_;
  }

 private:
  const std::string& contig_seq(int tid) { return ref_[ref_index_.at(input_.contigs()[tid])].seq; }

  void finish_contig(int tid) {
    while (!process_window(tid, true)) {
    }
    log::info("call", "contig " + input_.contigs()[tid] + " done: " + std::to_string(stats_.calls) + " calls so far");
  }

  // Returns true when the contig is finished.
  bool process_window(int tid, bool last) {
    const std::string& seq = contig_seq(tid);
    const int64_t len = static_cast<int64_t>(seq.size());
    const int64_t we = last ? len : std::min(len, ws_ + opt_.window);
    auto t0 = std::chrono::steady_clock::now();
    std::vector<Region> regions =
        detail::find_regions(seq, ws_, we, reads_, opt_.min_base_q, opt_.region_padding, opt_.max_region);
    int64_t next = we;
    if (we < len) {  // a region reaching the window's end waits for the next window
      while (!regions.empty() && regions.back().end >= we - opt_.region_padding) {
        next = std::min(next, regions.back().core_begin);
        regions.pop_back();
      }
    }
    stats_.regions_s += since(t0);
    call_regions(tid, regions);
    ws_ = std::max(next, ws_ + 1);
    // Reads that end before the next window's first possible region are done.
    const int64_t keep_from = ws_ - opt_.region_padding - 1;
    reads_.erase(std::remove_if(reads_.begin(), reads_.end(), [&](const AlignedRead& x) { return x.end < keep_from; }),
                 reads_.end());
    return we >= len;
  }

  void call_regions(int tid, const std::vector<Region>& regions) {
    if (regions.empty()) return;
    const std::string& seq = contig_seq(tid);
    std::vector<RegionWork> work(regions.size());
    auto t0 = std::chrono::steady_clock::now();
    ParallelErrors errors;
#pragma omp parallel for schedule(dynamic, 1)
    for (size_t i = 0; i < regions.size(); ++i) {
      errors.run([&] {
        RegionWork& w = work[i];
        w.region = regions[i];
        std::string bases;
        std::vector<uint8_t> quals;
        std::vector<const AlignedRead*> used;
        for (const AlignedRead& r : reads_) {
          if (r.pos >= w.region.end || r.end <= w.region.begin) continue;
          detail::read_slice(r, w.region.begin, w.region.end, bases, quals);
          if (bases.empty()) continue;
          w.slices.push_back(bases);
          w.quals.push_back(quals);
          used.push_back(&r);
        }
        const std::string ref_region = seq.substr(w.region.begin, w.region.end - w.region.begin);
        w.haps = detail::assemble(ref_region, w.slices, w.quals, opt_.min_base_q, opt_.min_prune, opt_.max_haplotypes);
        if (w.haps.size() < 2) {  // no k worked, or the graph shows no alternative to the reference
          w.assembled = false;
          w.haps = detail::pileup_haplotypes(ref_region, w.region.begin, used, opt_.min_base_q, opt_.max_haplotypes);
        }
        for (const std::string& h : w.haps)
          w.events.push_back(detail::haplotype_events(ref_region, w.region.begin, h, seq));
      });
    }
    errors.rethrow();
    stats_.assembly_s += since(t0);
    // One pair-HMM batch for the window: reads x haplotypes of every region with an alternative.
    t0 = std::chrono::steady_clock::now();
    pairhmm::PairHmmBatch batch;
    for (RegionWork& w : work) {
      ++stats_.regions;
      if (!w.assembled) ++stats_.regions_unassembled;
      if (w.haps.size() < 2 || w.slices.empty()) continue;
      stats_.haplotypes += static_cast<int64_t>(w.haps.size());
      const int32_t first_read = static_cast<int32_t>(batch.read_len.size());
      for (size_t r = 0; r < w.slices.size(); ++r) {
        std::vector<uint8_t> bq = w.quals[r];
        for (uint8_t& q : bq) q = q < 18 ? 6 : q;  // GATK's pair-HMM base-quality floor
        const std::vector<uint8_t> gap(bq.size(), 45), gcp(bq.size(), 10);
        batch.add_read(w.slices[r], bq, gap, gap, gcp);
      }
      const int32_t first_hap = static_cast<int32_t>(batch.hap_len.size());
      for (const std::string& h : w.haps) batch.add_haplotype(h);
      w.group = static_cast<int32_t>(batch.groups.size());
      batch.add_group(first_read, static_cast<int32_t>(w.slices.size()), first_hap, static_cast<int32_t>(w.haps.size()));
    }
    std::vector<double> lik;
    pairhmm::PairHmmStats ps;
    engine_->compute(batch, pairhmm::PairHmmOptions{}, lik, &ps);
    stats_.pairs += ps.pairs;
    stats_.pairhmm_kernel_ms += ps.kernel_ms;
    stats_.pairhmm_s += since(t0);
    // Genotype every site of every region.
    t0 = std::chrono::steady_clock::now();
    std::vector<size_t> offset(batch.groups.size() + 1, 0);
    for (size_t g = 0; g < batch.groups.size(); ++g) {
      offset[g + 1] = offset[g] + static_cast<size_t>(batch.groups[g].n_reads) * batch.groups[g].n_haps;
    }
    std::vector<std::vector<Record>> per_region(work.size());
    ParallelErrors genotype_errors;
#pragma omp parallel for schedule(dynamic, 1)
    for (size_t i = 0; i < work.size(); ++i) {
      genotype_errors.run([&] {
        if (work[i].group >= 0) per_region[i] = genotype_region(work[i], lik, offset[work[i].group], seq);
      });
    }
    genotype_errors.rethrow();
    std::vector<Record> records;
    for (auto& v : per_region) records.insert(records.end(), v.begin(), v.end());
    std::stable_sort(records.begin(), records.end(), [](const Record& a, const Record& b) {
      return a.pos != b.pos ? a.pos < b.pos : a.away < b.away;
    });
    stats_.genotype_s += since(t0);
    for (const Record& rec : records) {
      if (rec.pos <= last_written_) continue;  // the same site from an overlapping region, or an earlier window
      write(tid, rec.call);
      last_written_ = rec.pos;
    }
  }

  std::vector<Record> genotype_region(const RegionWork& w, const std::vector<double>& lik, size_t at,
                                      const std::string& seq) const {
    // Sites: events grouped by position; alleles share the longest reference allele.
    std::map<int64_t, std::vector<Event>> sites;
    for (const auto& evs : w.events) {
      for (const Event& e : evs) {
        auto& v = sites[e.pos];
        if (std::find(v.begin(), v.end(), e) == v.end()) v.push_back(e);
      }
    }
    const size_t n_reads = w.slices.size(), n_haps = w.haps.size();
    const std::vector<double> region_lik(lik.begin() + static_cast<int64_t>(at),
                                         lik.begin() + static_cast<int64_t>(at + n_reads * n_haps));
    std::vector<Record> out;
    for (auto& [pos, evs] : sites) {
      size_t ref_len = 0;
      for (const Event& e : evs) ref_len = std::max(ref_len, e.ref.size());
      const std::string ref_allele = seq.substr(pos, ref_len);
      std::vector<std::string> alleles{ref_allele};
      for (const Event& e : evs) alleles.push_back(e.alt + ref_allele.substr(e.ref.size()));
      std::vector<int> hap_allele(n_haps, 0);
      for (size_t h = 0; h < n_haps; ++h) {
        for (const Event& e : w.events[h]) {
          if (e.pos != pos) continue;
          hap_allele[h] = 1 + static_cast<int>(std::find(evs.begin(), evs.end(), e) - evs.begin());
        }
      }
      const bool snp = std::all_of(evs.begin(), evs.end(), [](const Event& e) { return e.ref.size() == 1 && e.alt.size() == 1; });
      const double het = snp ? opt_.het_snp : opt_.het_indel;
      detail::SiteCall call = detail::genotype_site(region_lik, n_reads, n_haps, hap_allele, alleles, het);
      if (call.gt_a == 0 && call.gt_b == 0) continue;
      if (alleles.size() > 2) {
        // Keep the alleles of the called genotype only (haplotypes with a dropped allele count as reference).
        std::vector<int> keep{0};
        if (call.gt_a) keep.push_back(call.gt_a);
        if (call.gt_b && call.gt_b != call.gt_a) keep.push_back(call.gt_b);
        if (keep.size() < alleles.size()) {
          std::vector<std::string> sub;
          for (int a : keep) sub.push_back(alleles[a]);
          std::vector<int> sub_allele(n_haps, 0);
          for (size_t h = 0; h < n_haps; ++h) {
            const auto it = std::find(keep.begin(), keep.end(), hap_allele[h]);
            sub_allele[h] = it == keep.end() ? 0 : static_cast<int>(it - keep.begin());
          }
          call = detail::genotype_site(region_lik, n_reads, n_haps, sub_allele, sub, het);
          if (call.gt_a == 0 && call.gt_b == 0) continue;
        }
      }
      if (call.qual < opt_.min_qual) continue;
      call.site.pos = pos;
      // How far the site lies outside this region's core: where regions overlap, the
      // call of the region that has the site in (or nearest to) its core is kept.
      const int64_t site_end = pos + static_cast<int64_t>(ref_len);
      const int64_t away = site_end <= w.region.core_begin ? w.region.core_begin - site_end + 1
                           : pos >= w.region.core_end     ? pos - w.region.core_end + 1
                                                          : 0;
      out.push_back({pos, away, std::move(call)});
    }
    return out;
  }

  void write(int tid, const detail::SiteCall& c) {
    bcf_hdr_t* hdr = vcf_->header();
    bcf1_t* rec = bcf_init();
    rec->rid = bcf_hdr_name2id(hdr, input_.contigs()[tid].c_str());
    rec->pos = c.site.pos;
    std::string alleles;
    for (size_t i = 0; i < c.alleles.size(); ++i) alleles += (i ? "," : "") + c.alleles[i];
    bcf_update_alleles_str(hdr, rec, alleles.c_str());
    rec->qual = static_cast<float>(c.qual);
    int32_t dp = c.dp;
    bcf_update_info_int32(hdr, rec, "DP", &dp, 1);
    int32_t gt[2] = {bcf_gt_unphased(c.gt_a), bcf_gt_unphased(c.gt_b)};
    bcf_update_genotypes(hdr, rec, gt, 2);
    int32_t gq = c.gq;
    bcf_update_format_int32(hdr, rec, "GQ", &gq, 1);
    bcf_update_format_int32(hdr, rec, "DP", &dp, 1);
    std::vector<int32_t> ad(c.ad.begin(), c.ad.end()), pl(c.pl.begin(), c.pl.end());
    bcf_update_format_int32(hdr, rec, "AD", ad.data(), static_cast<int>(ad.size()));
    bcf_update_format_int32(hdr, rec, "PL", pl.data(), static_cast<int>(pl.size()));
    vcf_->write(rec);
    bcf_destroy(rec);
    ++stats_.calls;
  }

  const CallOptions& opt_;
  std::vector<io::FastaRecord> ref_;
  std::map<std::string, int> ref_index_;
  ReadInput input_;
  std::unique_ptr<io::VcfWriter> vcf_;
  std::unique_ptr<pairhmm::PairHmmEngine> engine_;
  std::vector<AlignedRead> reads_;  // the current window's reads, by position
  int64_t ws_ = 0;                  // the current window's start
  int64_t last_written_ = -1;       // position of the contig's last record
  int64_t skipped_no_ref_ = 0;      // reads on contigs the reference lacks
  CallStats stats_;
};

}  // namespace

CallStats run_call(const CallOptions& opt) {
  if (opt.threads > 0) omp_set_num_threads(opt.threads);
  if (opt.reference.empty()) throw UsageError("-r REF.fa is required");
  std::vector<std::string> inputs = opt.inputs;
  inputs.push_back(opt.reference);
  io::check_not_input(opt.output, "-o", inputs);
  Caller caller(opt);
  return caller.run();
}

std::string format_stats(const CallStats& s) {
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "reads\t%lld\nreads_filtered\t%lld\nregions\t%lld\nregions_unassembled\t%lld\nhaplotypes\t%lld\n"
                "pairhmm_pairs\t%lld\ncalls\t%lld\nbackend\t%s\nregions_s\t%.3f\nassembly_s\t%.3f\npairhmm_s\t%.3f\n"
                "pairhmm_kernel_ms\t%.3f\ngenotype_s\t%.3f\ntotal_s\t%.3f\n",
                static_cast<long long>(s.reads), static_cast<long long>(s.reads_filtered),
                static_cast<long long>(s.regions), static_cast<long long>(s.regions_unassembled),
                static_cast<long long>(s.haplotypes), static_cast<long long>(s.pairs), static_cast<long long>(s.calls),
                s.backend.c_str(), s.regions_s, s.assembly_s, s.pairhmm_s, s.pairhmm_kernel_ms, s.genotype_s,
                s.total_s);
  return buf;
}

}  // namespace gatemap::caller
