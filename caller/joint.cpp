// The `joint` run: the gVCFs' contigs cut into chunks called on all threads (through the
// inputs' tabix/CSI indexes; unindexed inputs are read in one pass), each chunk reading
// its inputs side by side by position; chunks written in order.
#include "caller/joint.hpp"

#include <htslib/faidx.h>
#include <htslib/tbx.h>
#include <htslib/vcf.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <memory>

#include "caller/gvcf_cursor.hpp"
#include "caller/vcf_records.hpp"
#include "common/error.hpp"
#include "common/log.hpp"
#include "common/ordered_lanes.hpp"
#include "common/thread_budget.hpp"
#include "io/output_file.hpp"
#include "io/text/vcf_writer.hpp"

namespace gatemap::caller {

namespace {

using detail::GvcfEntry;
constexpr int64_t kChunk = 1000000;  // bases a thread calls at a time

// A record as an entry (its kind: block or variant).
GvcfEntry entry_of(const bcf_hdr_t* hdr, bcf1_t* rec) {
  bcf_unpack(rec, BCF_UN_STR);  // (a copied record comes packed)
  GvcfEntry e;
  e.kind = is_block(rec) ? GvcfEntry::Kind::block : GvcfEntry::Kind::variant;
  e.pos = rec->pos;
  for (int a = 0; a < rec->n_allele; ++a) e.alleles.emplace_back(rec->d.allele[a]);
  bcf_hdr_t* h = const_cast<bcf_hdr_t*>(hdr);
  int32_t* v = nullptr;
  int n = 0;
  const auto ints = [&](const char* key, std::vector<int>& out) {
    out.clear();
    const int k = bcf_get_format_int32(h, rec, key, &v, &n);
    for (int i = 0; i < k && v[i] != bcf_int32_vector_end; ++i) out.push_back(v[i] == bcf_int32_missing ? 0 : v[i]);
  };
  ints("PL", e.pl);
  std::vector<int> one;
  ints("DP", one);
  if (!one.empty()) e.dp = one[0];
  if (e.kind == GvcfEntry::Kind::variant) {
    int32_t* gt = nullptr;
    int n_gt = 0;
    e.hint = bcf_get_genotypes(h, rec, &gt, &n_gt) == 2 && bcf_gt_allele(gt[0]) == 0 && bcf_gt_allele(gt[1]) == 0;
    free(gt);
    ints("AD", e.ad);
    ints("SB", one);
    for (size_t k = 0; k < 4 && k < one.size(); ++k) e.sb[k] = one[k];
    if (bcf_get_info_int32(h, rec, "RAW_MQandDP", &v, &n) == 2) e.mq_squares = v[0], e.mq_reads = v[1];
    float* f = nullptr;
    int nf = 0;
    for (auto [key, out] : {std::pair{"MQRankSum", &e.mq_rank_sum}, {"ReadPosRankSum", &e.read_pos_rank_sum},
                            {"BaseQRankSum", &e.base_q_rank_sum}}) {
      if (bcf_get_info_float(h, rec, key, &f, &nf) == 1 && !bcf_float_is_missing(f[0])) *out = f[0];
    }
    free(f);
    if (std::find(e.alleles.begin(), e.alleles.end(), "<NON_REF>") == e.alleles.end()) {
      free(v);
      throw FormatError("record " + std::string(bcf_seqname(hdr, rec)) + ":" + std::to_string(rec->pos + 1) +
                        " has no <NON_REF> allele: not a gVCF record (make the gVCFs with 'gatemap call --gvcf')");
    }
  }
  free(v);
  return e;
}

// What each input says from one position to the next. The last block, and a hint
// starting here, are kept and decoded only when a site falls on them: most hold none,
// and decoding every block's FORMAT was most of joint's time.
struct SampleState {
  GvcfEntry variant, here;  // the last variant record, one starting here
  KeptRecord kept;          // the last block
  GvcfEntry block;          // it decoded, where block_decoded
  bool block_decoded = false;
  int64_t block_pos = -1, block_end = -1, variant_end = -1;  // end: exclusive
  bool has_here = false;
  KeptRecord hint;          // an allele hint starting here (a text gVCF's), where hint_here
  bool hint_here = false;
  // Forgets what came before (a new contig).
  void reset() {
    variant = here = block = GvcfEntry{};
    block_decoded = has_here = hint_here = false;
    block_pos = block_end = variant_end = -1;
  }
  const GvcfEntry& block_entry(GvcfCursor& cursor) {
    if (!block_decoded) block = entry_of(cursor.header(), cursor.record(kept)), block_decoded = true;
    return block;
  }
};

// The sites of [begin, end) of contig rid (the whole files where region is null), in order.
std::vector<detail::SiteCall> call_chunk(const std::vector<std::unique_ptr<GvcfFile>>& files, const char* region,
                                         int rid, int64_t begin, int64_t end, const JointOptions& opt,
                                         int64_t& records, std::vector<int>& rids) {
  const size_t S = files.size();
  std::vector<std::unique_ptr<GvcfCursor>> cursors;
  std::vector<const GvcfPlace*> cur(S, nullptr);
  for (size_t s = 0; s < S; ++s) {
    cursors.push_back(std::make_unique<GvcfCursor>(*files[s], region));
    cur[s] = cursors[s]->next();
  }
  std::vector<SampleState> state(S);
  std::vector<GvcfEntry> entries(S);
  std::vector<detail::SiteCall> out;
  int state_rid = -1;
  for (;;) {
    int r = INT32_MAX;
    int64_t p = INT64_MAX;
    for (size_t s = 0; s < S; ++s) {
      if (cur[s] && (cur[s]->rid < r || (cur[s]->rid == r && cur[s]->pos < p))) r = cur[s]->rid, p = cur[s]->pos;
    }
    if (r == INT32_MAX) break;
    if (r != state_rid) {
      for (SampleState& st : state) st.reset();
      state_rid = r;
    }
    bool site = false;
    for (size_t s = 0; s < S; ++s) {
      SampleState& st = state[s];
      st.has_here = st.hint_here = false;
      while (cur[s] && cur[s]->rid == r && cur[s]->pos == p) {
        ++records;
        if (cur[s]->block) {
          st.block_end = cur[s]->end;
          cursors[s]->keep(st.kept);
          st.block_pos = p, st.block_decoded = false;
        } else if (cur[s]->hint) {
          cursors[s]->keep(st.hint);
          st.hint_here = true;
        } else {
          GvcfEntry e = entry_of(cursors[s]->header(), cursors[s]->record());
          if (!e.hint) {
            st.variant_end = p + static_cast<int64_t>(e.alleles[0].size());
            st.variant = e;
            site = true;
          }
          st.here = std::move(e);
          st.has_here = true;
        }
        cur[s] = cursors[s]->next();
      }
    }
    if (!site || (region && (r != rid || p < begin || p >= end))) continue;
    for (size_t s = 0; s < S; ++s) {
      SampleState& st = state[s];
      if (st.has_here) {
        entries[s] = st.here;
      } else if (st.hint_here) {
        entries[s] = entry_of(cursors[s]->header(), cursors[s]->record(st.hint));
      } else if (st.variant_end > p && st.variant.pos < p) {
        entries[s] = st.variant;
        entries[s].kind = GvcfEntry::Kind::spanning;
      } else if (st.block_end > p && st.block_pos <= p) {
        entries[s] = st.block_entry(*cursors[s]);
      } else {
        entries[s] = GvcfEntry{};
      }
    }
    detail::SiteCall call;
    if (detail::joint_site(p, entries, opt, call)) {
      out.push_back(std::move(call));
      rids.push_back(r);
    }
  }
  return out;
}

// The gVCFs, each once and each of its own sample (their names into `samples`), with
// their indexes; `indexed` false when one has none.
std::vector<std::unique_ptr<GvcfFile>> open_gvcfs(const std::vector<std::string>& paths,
                                                  std::vector<std::string>& samples, bool& indexed) {
  std::vector<std::unique_ptr<GvcfFile>> files;
  for (const std::string& path : paths) {
    for (const auto& f : files) {
      if (f->path == path || io::same_file(f->path, path)) throw UsageError("'" + path + "' is given twice: each gVCF once");
    }
    files.push_back(open_gvcf(path));
    GvcfFile& f = *files.back();
    const std::string sample = f.hdr->samples[0];
    if (std::find(samples.begin(), samples.end(), sample) != samples.end()) {
      throw FormatError("sample '" + sample + "' of '" + path + "' is in another gVCF too: one gVCF per sample");
    }
    samples.push_back(sample);
    if (f.fp->format.format == bcf) {
      f.csi = bcf_index_load(path.c_str());
    } else {
      f.tbx = tbx_index_load(path.c_str());
    }
    indexed &= f.tbx || f.csi;
  }
  return files;
}

// The contigs (name, length): the first header's, the same in every gVCF and in the reference.
std::vector<std::pair<std::string, int64_t>> checked_contigs(const std::vector<std::unique_ptr<GvcfFile>>& files,
                                                             const std::string& reference) {
  const bcf_hdr_t* h0 = files[0]->hdr;
  std::vector<std::pair<std::string, int64_t>> contigs;
  const std::unique_ptr<faidx_t, void (*)(faidx_t*)> fai(fai_load(reference.c_str()), fai_destroy);
  if (!fai) throw IoError("cannot read the reference '" + reference + "' (a FASTA, or its .fai)");
  int n_contigs = 0;
  const char** names = bcf_hdr_seqnames(h0, &n_contigs);
  for (int c = 0; c < n_contigs; ++c) {
    const bcf_hrec_t* hrec = bcf_hdr_get_hrec(h0, BCF_HL_CTG, "ID", names[c], nullptr);
    const int at = hrec ? bcf_hrec_find_key(const_cast<bcf_hrec_t*>(hrec), "length") : -1;
    const int64_t len = at >= 0 ? std::stoll(hrec->vals[at]) : 0;
    const int64_t ref_len = faidx_seq_len(fai.get(), names[c]);
    if (ref_len < 0 || (len > 0 && ref_len != len)) {
      const std::string name = names[c];
      free(names);
      throw FormatError("contig '" + name + "' of '" + files[0]->path + "' is " +
                        (ref_len < 0 ? "not in" : "another length in") + " '" + reference +
                        "': use the reference the gVCFs were called against");
    }
    contigs.emplace_back(names[c], ref_len);
  }
  free(names);
  for (size_t s = 1; s < files.size(); ++s) {
    int n = 0;
    const char** other = bcf_hdr_seqnames(files[s]->hdr, &n);
    bool same = n == n_contigs;
    for (int c = 0; same && c < n; ++c) same = contigs[c].first == other[c];
    free(other);
    if (!same) {
      throw FormatError("'" + files[s]->path + "': its contigs differ from those of '" + files[0]->path +
                        "' (another reference?)");
    }
  }
  return contigs;
}

}  // namespace

JointStats run_joint(const JointOptions& opt) {
  const log::Stopwatch t0;
  use_threads(opt.threads);
  if (opt.inputs.empty()) throw UsageError("no gVCF given");
  if (opt.reference.empty()) throw UsageError("-r REF.fa is required");
  io::check_vcf_name(opt.output, "-o");
  std::vector<std::string> samples;
  bool indexed = true;
  const std::vector<std::unique_ptr<GvcfFile>> files = open_gvcfs(opt.inputs, samples, indexed);
  io::VcfHeaderInfo info;
  info.contigs = checked_contigs(files, opt.reference);
  const int n_contigs = static_cast<int>(info.contigs.size());
  info.reference = opt.reference;
  info.command_line = opt.command_line;
  info.version = opt.version;
  info.samples = samples;
  info.extra_lines = detail::site_header_lines(false);
  io::VcfWriter vcf(opt.output, info, std::min(8, omp_get_max_threads()));
  // Chunks of the contigs, in order; unindexed input: one pass over the whole files.
  struct Chunk {
    int rid;
    int64_t begin, end;
  };
  std::vector<Chunk> chunks;
  if (indexed) {
    for (int c = 0; c < n_contigs; ++c) {
      for (int64_t b = 0; b < info.contigs[c].second; b += kChunk) chunks.push_back({c, b, std::min(info.contigs[c].second, b + kChunk)});
    }
  } else {
    log::info("joint", "the gVCFs are not all indexed (.tbi/.csi): read in one pass, on one thread");
    chunks.push_back({-1, 0, 0});
  }
  // Chunks called on a lane per thread and written in order as they come (OrderedLanes):
  // a chunk's records are formatted as VCF text on its lane, so the writer only writes
  // (on the writing thread they were a ninth of a one-thread run, ten 10x gVCFs).
  struct ChunkItem {
    size_t index = 0;
    std::vector<detail::SiteCall> calls;  // written record by record to a BCF output
    std::vector<int> rids;
    std::string text;  // a text output's records
    int64_t records = 0;
  };
  JointStats stats;
  const int threads = std::max(1, omp_get_max_threads());
  size_t next_chunk = 0;
  OrderedLanes<ChunkItem> pipeline(static_cast<size_t>(threads) * 2 + 2, [&](ChunkItem& item) {
    if (next_chunk == chunks.size()) return false;
    item.index = next_chunk++;
    return true;
  });
  const auto call = [&](ChunkItem& item) {
    const Chunk& ch = chunks[item.index];
    std::string region;
    if (ch.rid >= 0) region = info.contigs[ch.rid].first + ":" + std::to_string(ch.begin + 1) + "-" + std::to_string(ch.end);
    item.records = 0, item.rids.clear(), item.text.clear();
    item.calls = call_chunk(files, ch.rid >= 0 ? region.c_str() : nullptr, ch.rid, ch.begin, ch.end, opt, item.records, item.rids);
    if (!vcf.writes_text()) return;
    for (size_t k = 0; k < item.calls.size(); ++k) {
      detail::format_site(vcf.header(), item.rids[k], item.calls[k], false, opt.min_qd, item.text);
    }
  };
  const size_t say_every = static_cast<size_t>(threads) * 4;
  pipeline.run(
      threads,
      [&](int) {
        while (ChunkItem* item = pipeline.next(false)) {
          call(*item);
          pipeline.done(item);
        }
      },
      [&](ChunkItem& item) {
        stats.records += item.records;
        stats.calls += static_cast<int64_t>(item.calls.size());
        if (vcf.writes_text()) {
          vcf.write_text(item.text);
        } else {
          for (size_t k = 0; k < item.calls.size(); ++k) {
            // Unindexed input: the record's contig id is the first header's (all agree).
            detail::write_site(vcf, item.rids[k], item.calls[k], false, opt.min_qd);
          }
        }
        if ((item.index + 1) % say_every == 0 || item.index + 1 == chunks.size()) {
          log::info("joint", std::to_string(item.index + 1) + " of " + std::to_string(chunks.size()) +
                                 " chunks: " + std::to_string(stats.calls) + " calls");
        }
      });
  vcf.close();
  stats.total_s = t0.seconds();
  return stats;
}

}  // namespace gatemap::caller
