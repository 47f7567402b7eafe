// Parallel in-place sorts of 32-byte entries (BamSorter::Entry) and 72-byte ones (read ends).
#include <omp.h>
#include <sys/mman.h>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <parallel/algorithm>
#include <parallel/multiway_merge.h>
#include <random>
#include <vector>
#include "io/mapped_buffer.hpp"
using namespace gatemap::io;
struct E32 { std::pair<uint64_t,uint64_t> key; uint64_t input; const uint8_t* at;
  bool operator<(const E32& o) const { return key != o.key ? key < o.key : input < o.input; } };
struct E72 { uint64_t k[3]; uint64_t input; uint64_t pad[5];
  bool operator<(const E72& o) const { for(int i=0;i<3;++i) if(k[i]!=o.k[i]) return k[i]<o.k[i]; return input<o.input; } };
double now(){ return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
template<class T> void fill(MappedBuffer<T>& b, size_t n){
  b.resize(n);
#pragma omp parallel
  { std::mt19937_64 r(omp_get_thread_num()*7919+1);
#pragma omp for
    for(size_t i=0;i<n;++i){ T x{}; if constexpr(sizeof(T)==32){ x.key={r()%64, r()%64000000}; x.input=i;} else { x.k[0]=r()%4; x.k[1]=r()%64000000; x.k[2]=r()%64000000; x.input=i;} b[i]=x; } }
}
// Chunks sorted in place on their own threads, then merged in parallel into a second buffer.
template<class T> void chunk_merge(MappedBuffer<T>& b, MappedBuffer<T>& out){
  const int t = omp_get_max_threads(); const size_t n=b.size();
  std::vector<std::pair<T*,T*>> seq(t);
#pragma omp parallel for num_threads(t)
  for(int i=0;i<t;++i){ T* s=b.begin()+n*i/t; T* e=b.begin()+n*(i+1)/t; std::sort(s,e); seq[i]={s,e}; }
  out.resize(n);
  __gnu_parallel::multiway_merge(seq.begin(), seq.end(), out.begin(), n, std::less<T>(), __gnu_parallel::parallel_tag(t));
}
template<class T> void run(const char* name, size_t n){
  for(int v=0; v<5; ++v){
    MappedBuffer<T> b; fill(b,n); MappedBuffer<T> out;
    double t=now();
    const char* vn="";
    switch(v){
      case 0: vn="balanced_quicksort"; __gnu_parallel::sort(b.begin(), b.end(), std::less<T>(), __gnu_parallel::balanced_quicksort_tag()); break;
      case 1: vn="quicksort"; __gnu_parallel::sort(b.begin(), b.end(), std::less<T>(), __gnu_parallel::quicksort_tag()); break;
      case 2: vn="multiway_mergesort"; __gnu_parallel::sort(b.begin(), b.end(), std::less<T>(), __gnu_parallel::multiway_mergesort_tag()); break;
      case 3: vn="stable_sort"; __gnu_parallel::stable_sort(b.begin(), b.end(), std::less<T>()); break;
      case 4: vn="chunks+merge"; chunk_merge(b,out); break;
    }
    double dt=now()-t;
    const T* r = v==4 ? out.begin() : b.begin();
    bool ok = std::is_sorted(r, r+n);
    printf("%s n=%zu threads=%d %-20s %.3f s %s\n", name, n, omp_get_max_threads(), vn, dt, ok?"":"NOT SORTED");
    fflush(stdout);
  }
}
int main(int argc,char**argv){ size_t n=argc>1?atol(argv[1]):12600000; run<E32>("entry32",n); run<E72>("ends72",n/2); }
