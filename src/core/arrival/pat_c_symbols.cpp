// The PAT_* symbols of pat.h for programs that link ragged's static libraries; libragged_pmpi.so
// defines (and exports) its own in src/pmpi/pat.cpp. Both call ragged::pat (pat_c_api.cpp).
#include "ragged/arrival.hpp"
#include "ragged/pat.h"

extern "C" {

int PAT_Init(void) { return ragged::pat::init(); }
int PAT_ProcessingStart(void) { return ragged::pat::processing_start(); }
int PAT_Edge(double fraction) { return ragged::pat::edge(fraction); }
int PAT_ProcessingEnd(void) { return ragged::pat::processing_end(); }
int PAT_UseAlg(const char* algorithm) { return ragged::pat::use_alg(algorithm, 0, 0); }
int PAT_UseAlgFor(const char* algorithm, size_t count, size_t element_size) {
  return ragged::pat::use_alg(algorithm, count, element_size);
}
int PAT_Finalize(void) { return ragged::pat::finalize(); }
const char* PAT_LastError(void) { return ragged::pat::last_error(); }

}  // extern "C"
