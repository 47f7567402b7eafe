#include "caller/input.hpp"

#include <algorithm>
#include <new>
#include <string>
#include <unordered_map>
#include <utility>

#include "common/error.hpp"
#include "io/output_file.hpp"
#include "io/reads/sam_reader.hpp"

namespace gatemap::caller {

struct ReadInput::File {
  explicit File(const std::string& path, int threads, const std::string& reference)
      : in(path, threads, reference), hdr(in.header()) {}
  ~File() {
    if (rec) bam_destroy1(rec);
  }
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  io::SamReader in;
  sam_hdr_t* hdr;
  bam1_t* rec = nullptr;
  bool has = false;  // rec holds the next record
  std::unordered_map<std::string, int> rg_sample;  // @RG ID -> sample
  int only_sample = -1;                           // the file's sample, where it has one
  int last_tid = -1;
  int64_t last_pos = -1;
};

namespace {
// Adds the samples (@RG SM) of a file to `samples`, where new, and maps its read groups
// to them; a file without SM is the sample "sample".
void add_samples(sam_hdr_t* hdr, std::vector<std::string>& samples, std::unordered_map<std::string, int>& rg_sample,
                 int& only_sample) {
  const auto index_of = [&](const std::string& sm) {
    const auto it = std::find(samples.begin(), samples.end(), sm);
    if (it != samples.end()) return static_cast<int>(it - samples.begin());
    samples.push_back(sm);
    return static_cast<int>(samples.size() - 1);
  };
  kstring_t id = KS_INITIALIZE, sm = KS_INITIALIZE;
  std::vector<int> seen;
  for (int i = 0; i < sam_hdr_count_lines(hdr, "RG"); ++i) {
    if (sam_hdr_find_tag_pos(hdr, "RG", i, "SM", &sm) != 0) continue;
    const int s = index_of(std::string(sm.s, sm.l));
    if (sam_hdr_find_tag_pos(hdr, "RG", i, "ID", &id) == 0) rg_sample[std::string(id.s, id.l)] = s;
    if (std::find(seen.begin(), seen.end(), s) == seen.end()) seen.push_back(s);
  }
  ks_free(&id);
  ks_free(&sm);
  if (seen.empty()) seen.push_back(index_of("sample"));
  only_sample = seen.size() == 1 ? seen[0] : -1;
}
}  // namespace

ReadInput::ReadInput(const std::vector<std::string>& paths, int min_mapq, int threads, const std::string& reference)
    : min_mapq_(min_mapq) {
  if (paths.empty()) throw UsageError("no input BAM/SAM");
  for (size_t i = 0; i < paths.size(); ++i) {
    const std::string& p = paths[i];
    for (size_t j = 0; j < i; ++j) {  // one file twice would count each read twice
      if (p == paths[j] || (p != "-" && paths[j] != "-" && io::same_file(p, paths[j]))) {
        throw UsageError("'" + p + "' is given twice: each input BAM once");
      }
    }
    auto f = std::make_unique<File>(p, threads, reference);
    f->rec = bam_init1();
    if (!f->rec) throw std::bad_alloc();
    std::vector<std::string> names;
    for (int i = 0; i < sam_hdr_nref(f->hdr); ++i) names.emplace_back(sam_hdr_tid2name(f->hdr, i));
    add_samples(f->hdr, samples_, f->rg_sample, f->only_sample);
    if (files_.empty()) {
      contigs_ = names;
      for (int i = 0; i < sam_hdr_nref(f->hdr); ++i) lengths_.push_back(sam_hdr_tid2len(f->hdr, i));
    } else if (names != contigs_) {
      throw FormatError("'" + p + "': its @SQ lines differ from those of '" + paths.front() + "'");
    }
    files_.push_back(std::move(f));
  }
  spare_ = bam_init1();
  if (!spare_) throw std::bad_alloc();
  for (auto& f : files_) fill(*f);
}

ReadInput::~ReadInput() {
  if (spare_) bam_destroy1(spare_);
}

bool ReadInput::fill(File& f) {
  for (;;) {
    f.has = f.in.next(f.rec);
    if (!f.has) return false;
    const int tid = f.rec->core.tid;
    if (tid < 0) {  // unplaced: nothing to call from, wherever it sits
      ++unplaced_;
      continue;
    }
    const int64_t pos = f.rec->core.pos;
    const auto where = [&] {
      return "'" + f.in.path() + "' record " + std::to_string(f.in.records_read()) + " (" + bam_get_qname(f.rec) + ")";
    };
    if (tid < f.last_tid || (tid == f.last_tid && pos < f.last_pos)) {
      throw FormatError(where() + " is out of coordinate order: sort it with 'samtools sort'");
    }
    const int64_t len = sam_hdr_tid2len(f.hdr, tid);
    if (pos < 0 || pos >= len || (!(f.rec->core.flag & BAM_FUNMAP) && bam_endpos(f.rec) > len)) {
      throw FormatError(where() + " lies outside its contig '" + sam_hdr_tid2name(f.hdr, tid) + "' (" +
                        std::to_string(len) + " bp)");
    }
    f.last_tid = tid, f.last_pos = pos;
    return true;
  }
}

void ReadInput::load_indexes() {
  for (auto& f : files_) f->in.load_index();
}

void ReadInput::query(int tid, int64_t begin, int64_t end) {
  for (auto& f : files_) {
    f->in.query(tid, begin, end);
    f->last_tid = -1, f->last_pos = -1;
    fill(*f);
  }
}

const bam1_t* ReadInput::next_record(int& tid, int& sample) {
  for (;;) {
    File* best = nullptr;
    for (auto& f : files_) {
      if (!f->has) continue;
      if (!best || f->rec->core.tid < best->rec->core.tid ||
          (f->rec->core.tid == best->rec->core.tid && f->rec->core.pos < best->rec->core.pos)) {
        best = f.get();
      }
    }
    if (!best) return nullptr;
    ++seen_;
    const bam1_t* b = best->rec;
    const uint16_t skip = BAM_FUNMAP | BAM_FSECONDARY | BAM_FSUPPLEMENTARY | BAM_FDUP | BAM_FQCFAIL;
    if ((b->core.flag & skip) || b->core.qual < min_mapq_ || b->core.n_cigar == 0 || b->core.l_qseq == 0) {
      ++filtered_;
      fill(*best);
      continue;
    }
    sample = best->only_sample;
    if (sample < 0) {  // a file of several samples: the read group says which
      const uint8_t* rg = bam_aux_get(b, "RG");
      const char* id = rg ? bam_aux2Z(rg) : nullptr;
      const auto it = id ? best->rg_sample.find(id) : best->rg_sample.end();
      if (it == best->rg_sample.end()) {
        throw FormatError("'" + best->in.path() + "' record " + std::to_string(best->in.records_read()) + " (" +
                          bam_get_qname(b) + "): " + (id ? "read group '" + std::string(id) + "' has no @RG line with SM" : std::string("no RG tag")) +
                          ", and the file holds several samples");
      }
      sample = it->second;
    }
    // Handed out as it is; the file moves on at the next call.
    std::swap(best->rec, spare_);
    fill(*best);
    tid = spare_->core.tid;
    return spare_;
  }
}

void ReadInput::to_read(const bam1_t* b, detail::AlignedRead& read) {
  read.pos = b->core.pos;
  read.end = bam_endpos(b);
  read.mapq = b->core.qual;
  read.reverse = b->core.flag & BAM_FREVERSE;
  const uint8_t* s = bam_get_seq(b);
  const uint8_t* q = bam_get_qual(b);
  read.seq.resize(b->core.l_qseq);
  read.qual.resize(b->core.l_qseq);
  for (int i = 0; i < b->core.l_qseq; ++i) {
    read.seq[i] = seq_nt16_str[bam_seqi(s, i)];
    read.qual[i] = q[0] == 0xff ? 30 : q[i];
  }
  read.cigar.assign(bam_get_cigar(b), bam_get_cigar(b) + b->core.n_cigar);
}

bool ReadInput::next(int& tid, detail::AlignedRead& read) {
  int sample = 0;
  const bam1_t* b = next_record(tid, sample);
  if (!b) return false;
  to_read(b, read);
  read.sample = sample;
  return true;
}

}  // namespace gatemap::caller
