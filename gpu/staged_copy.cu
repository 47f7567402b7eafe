#include "gpu/staged_copy.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <thread>

#include "gpu/buffers.cuh"

namespace gatemap::gpu {
namespace {

constexpr size_t kChunk = size_t{8} << 20;
constexpr int kLanes = 4;                   // host threads (GRCh37's index: 0.38-0.44 s on an H200)
constexpr size_t kStagedFrom = 4 * kChunk;  // below: one cudaMemcpy (pinning buffers would cost more)

struct Chunk {
  char* device;
  const char* host;
  size_t bytes;
};

// One lane: its chunks through two pinned buffers, on its own stream.
void copy_lane(const std::vector<Chunk>& chunks, size_t first, size_t step, int device) {
  GATEMAP_CUDA_CHECK(cudaSetDevice(device));
  Stream stream;
  PinnedBuffer<char> buffer[2];
  Event emptied[2];
  bool in_use[2] = {false, false};
  for (size_t c = first, i = 0; c < chunks.size(); c += step, ++i) {
    const size_t b = i % 2;
    if (in_use[b]) emptied[b].sync();  // its last chunk has left
    buffer[b].resize(kChunk);
    std::memcpy(buffer[b].data(), chunks[c].host, chunks[c].bytes);
    GATEMAP_CUDA_CHECK(
        cudaMemcpyAsync(chunks[c].device, buffer[b].data(), chunks[c].bytes, cudaMemcpyHostToDevice, stream.get()));
    emptied[b].record(stream.get());
    in_use[b] = true;
  }
  stream.sync();
}

}  // namespace

void copy_to_device(const std::vector<HostToDevice>& pieces) {
  std::vector<Chunk> chunks;
  size_t total = 0;
  for (const HostToDevice& p : pieces) {
    for (size_t at = 0; at < p.bytes; at += kChunk) {
      chunks.push_back(
          {static_cast<char*>(p.device) + at, static_cast<const char*>(p.host) + at, std::min(kChunk, p.bytes - at)});
    }
    total += p.bytes;
  }
  if (total < kStagedFrom) {
    for (const HostToDevice& p : pieces) {
      if (p.bytes) GATEMAP_CUDA_CHECK(cudaMemcpy(p.device, p.host, p.bytes, cudaMemcpyHostToDevice));
    }
    return;
  }
  int device = 0;
  GATEMAP_CUDA_CHECK(cudaGetDevice(&device));
  const size_t lanes = std::min<size_t>(kLanes, chunks.size());
  std::vector<std::exception_ptr> errors(lanes);
  std::vector<std::thread> threads;
  for (size_t lane = 0; lane < lanes; ++lane) {
    threads.emplace_back([&, lane] {
      try {
        copy_lane(chunks, lane, lanes, device);
      } catch (...) {
        errors[lane] = std::current_exception();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace gatemap::gpu
