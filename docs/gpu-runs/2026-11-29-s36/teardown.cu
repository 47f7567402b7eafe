// Where a CUDA process's exit time goes: context, device memory, pinned memory, and
// whether freeing / resetting before exit moves the cost.
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <unistd.h>
#include <sys/wait.h>
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
static int child(char** argv, int fd);
int main(int argc, char** argv) {
  int fds[2];
  pipe(fds);
  pid_t pid = fork();
  if (pid == 0) { close(fds[0]); return child(argv, fds[1]); }
  close(fds[1]);
  double leaving = 0;
  read(fds[0], &leaving, sizeof leaving);
  int st = 0;
  waitpid(pid, &st, 0);
  fprintf(stderr, "  teardown after leaving: %.3f s\n", now() - leaving);
  return 0;
}
static int child(char** argv, int fd) {
  size_t dev_mb = atol(argv[1]), pin_mb = atol(argv[2]), host_mb = atol(argv[3]), man_mb = argv[5] ? atol(argv[5]) : 0;
  const char* how = argv[4];  // exit | free | reset
  double t0 = now();
  cudaFree(0);
  double t1 = now();
  void* d = nullptr; void* p = nullptr;
  if (dev_mb) cudaMalloc(&d, dev_mb << 20), cudaMemset(d, 1, dev_mb << 20);
  if (pin_mb) cudaHostAlloc(&p, pin_mb << 20, 0), memset(p, 1, pin_mb << 20);
  void* mm = nullptr;
  if (man_mb) cudaMallocManaged(&mm, man_mb << 20), memset(mm, 1, man_mb << 20);
  char* h = nullptr;
  if (host_mb) h = (char*)malloc(host_mb << 20), memset(h, 1, host_mb << 20);
  cudaDeviceSynchronize();
  double t2 = now();
  if (!strcmp(how, "free")) { if (d) cudaFree(d); if (p) cudaFreeHost(p); if (mm) cudaFree(mm); }
  if (!strcmp(how, "reset")) cudaDeviceReset();
  double t3 = now();
  fprintf(stderr, "dev %zu MB pinned %zu MB host %zu MB managed %zu MB %s: init %.3f alloc %.3f %s %.3f; leaving at %.6f\n", dev_mb, pin_mb, host_mb, man_mb, how, t1 - t0, t2 - t1, how, t3 - t2, t3);
  write(fd, &t3, sizeof t3);
  return h ? 0 : 0;
}
