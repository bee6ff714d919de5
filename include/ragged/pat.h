/* ragged: the monitor calls of Proficz 2021 and Proficz 2018 (listing 4 of Proficz 2021) as a C API.
 *
 *   pat_bind(comm);               // C++ (ragged/arrival.hpp): the communicator to use
 *   PAT_Init();                   // collective: starts the background agent
 *   PAT_UseAlg("bdr");            // the allgather the agent prepares for
 *   for (...) {
 *     PAT_ProcessingStart();
 *     compute(); PAT_Edge(0.5); compute();
 *     PAT_ProcessingEnd();
 *     ... the collective, with pat_monitor()->arrive() as CollectiveOptions::arrival ...
 *   }
 *   PAT_Finalize();               // collective
 *
 * One monitor per OS process (MPI programs run one rank per process). Every call
 * returns PAT_SUCCESS or an error code; PAT_LastError() describes the last error.
 */
#ifndef RAGGED_PAT_H
#define RAGGED_PAT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
  PAT_SUCCESS = 0,
  PAT_ERR_STATE = 1,   /* not bound, not initialized, or initialized twice */
  PAT_ERR_ARG = 2,     /* an argument out of range */
  PAT_ERR_INTERNAL = 3 /* the runtime failed (see PAT_LastError) */
};

/* Starts the monitor over the communicator given to pat_bind() (collective). */
int PAT_Init(void);
/* The computation phase of this iteration starts. */
int PAT_ProcessingStart(void);
/* `fraction` of the computation is done, 0 < fraction <= 1 (the papers' "50%" is 0.5). */
int PAT_Edge(double fraction);
/* The computation phase ends. */
int PAT_ProcessingEnd(void);
/* The algorithm the coming collectives use: an arrival-aware one by name ("bdr", "bgd", "bslb"
 * for allgather; "bsls", "sls" for gather at root 0), "collective:name" ("gather:bsls"), or a
 * regular allgather; the message size is learned from the previous call. */
int PAT_UseAlg(const char* algorithm);
/* The same with the message size given: `count` elements of `element_size` bytes per rank. */
int PAT_UseAlgFor(const char* algorithm, size_t count, size_t element_size);
/* Stops the monitor (collective). */
int PAT_Finalize(void);
/* Text of the last error of this process ("" if none). */
const char* PAT_LastError(void);

#ifdef __cplusplus
}
#endif

#endif /* RAGGED_PAT_H */
