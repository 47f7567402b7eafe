#include "sim/read_files.hpp"

#include "common/error.hpp"

namespace gatemap::sim {

ReadFiles::ReadFiles(const std::vector<std::string>& paths, const std::vector<std::string>& truth_paths, int threads) {
  if (paths.empty() || paths.size() > 2 || (!truth_paths.empty() && truth_paths.size() != paths.size())) {
    throw Error("internal: ReadFiles takes one or two FASTQ names, and as many for the truth or none");
  }
  for (const std::string& p : paths) out_.push_back(std::make_unique<io::FastqWriter>(p, threads));
  for (const std::string& p : truth_paths) truth_.push_back(std::make_unique<io::FastqWriter>(p, threads));
}

void ReadFiles::write(const std::vector<SimRead>& reads) {
  const size_t mates = out_.size();
  for (size_t i = 0; i < reads.size(); ++i) {
    const size_t m = i % mates;
    name_ = reads[i].name;
    if (mates == 2) name_ += m ? "/2" : "/1";
    out_[m]->write(name_, reads[i].seq, reads[i].qual);
    if (truth_.empty()) continue;
    true_seq_ = reads[i].true_seq;
    for (size_t k = 0; k < true_seq_.size(); ++k) {
      if (true_seq_[k] == '-') true_seq_[k] = reads[i].seq[k];
    }
    truth_[m]->write(name_, true_seq_, reads[i].qual);
  }
}

void ReadFiles::close() {
  for (auto& w : out_) w->close();
  for (auto& w : truth_) w->close();
}

}  // namespace gatemap::sim
