#pragma once
// The GPU verifier's answer for a batch whose candidates stayed on the device (only the
// clusters the host needs came back: verifying::VerifyGpu::verify_clusters) -> per read,
// in the order of the read's candidates, as the CPU path would verify them.
#include <cstdint>
#include <vector>

#include "index/index.hpp"
#include "mapper/base/types.hpp"
#include "mapper/seeding/seed_gpu.hpp"
#include "mapper/verify/verify_gpu.hpp"

namespace gatemap::mapper::detail {

// A candidate the filter accepted: a hit the GPU found, or (result.edits
// verifying::kNotVerified) one the CPU verifies.
struct DeviceVerdict {
  Candidate cand;
  BandResult result;
};

struct DeviceVerdicts {
  std::vector<DeviceVerdict> verdicts;  // of read r: [first[r], first[r + 1])
  std::vector<int64_t> first;
  // Reads whose candidates the fallback stage may need: no hit, a candidate left to the
  // CPU, or a read cut at --max-cand whose best hit is poor (Verifier::needs_deep_search).
  std::vector<uint32_t> need_candidates;
};

// kept: in cluster order (as verify_clusters gives them), of the batch `clusters` describes.
// A read's verdicts: strand 0's, then strand 1's; a strand cut at --max-cand in support
// order (add_kept_candidates' order), contigs named as push_candidates names them.
void order_verdicts(const index::Index& idx, const seeding::SeedClusters& clusters,
                    std::vector<verifying::VerifiedCluster>& kept, const std::vector<SeededRead>& seeded,
                    DeviceVerdicts& out);

}  // namespace gatemap::mapper::detail
