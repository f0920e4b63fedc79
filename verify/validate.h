/* SPDX-License-Identifier: MIT */
/* dynid verify: validation of identified parameters against measured data.
 *
 * - torque metrics (streaming, bounded memory): per joint and over all
 *   joints  rms = sqrt(mean e^2),  rel_err_pct = 100 ||e|| / ||tau_meas||,
 *   r2 = 1 - sum e^2 / sum (tau_meas - mean)^2, with e = tau_meas - tau_pred
 *   and tau_meas the unfiltered logged torque (dyiSample.tau_raw); the
 *   largest |e| and where (row, time, joint);
 * - the inertia matrix along the log: smallest eigenvalue and where, count
 *   of samples where it is not positive definite;
 * - a short-horizon forward simulation driven by the measured torque
 *   (zero-order hold between samples, dy_fd_aba integrated by the
 *   linearly implicit Rosenbrock-W method of verify/sim.h with its own
 *   step control), restarted from the measured state every `horizon` seconds:
 *   position error per joint (rms, max) against the logged q;
 * - physical consistency of the identified MLCs, decided by a semidefinite
 *   program (ident/consistent.h, dyi_consistent_check): is there a
 *   realisation pi with K pi = beta whose every link has a positive
 *   semi-definite pseudo-inertia
 *       PI = [ tr(J)/2 E - J   h ; h^T  m ]     (J, h = MS about O_j)
 *   (equivalently m >= 0, principal moments about the centre of mass >= 0
 *   satisfying the triangle inequalities [WensingKimSlotine18]) and
 *   IA, FV, FC >= 0? The SDP minimises the relative distance of K pi from
 *   beta over consistent pi: a witness within 1e-6 proves "consistent", a
 *   dual lower bound above it proves "inconsistent" (certified either way).
 *   An indefinite inertia matrix along the log is a second, independent
 *   certificate of inconsistency (H(q) is the same for every realisation,
 *   and physically valid links with non-negative armatures make it
 *   positive semi-definite); the two always agree. dyv_validate_log prints
 *   both. Standard parameters a PARAMS file carries (the ones its estimate
 *   was solved as, ident/params.h) need no search: dyv_phys_carried checks
 *   them link by link. */
#ifndef DYNID_VALIDATE_H
#define DYNID_VALIDATE_H

#include <stdio.h>
#include "core/model.h"
#include "ident/log.h"
#include "verify/ne_base.h"
#include "ident/base.h"
#include "verify/sim.h"

/* ------------------------------------------------ streaming torque metrics */
typedef struct {
  int n;
  long count;
  double shift[DY_MAXJ];   /* first measured value (for a stable variance) */
  double sse[DY_MAXJ];     /* sum e^2 */
  double ssm[DY_MAXJ];     /* sum tau_meas^2 */
  double s1[DY_MAXJ];      /* sum (tau_meas - shift) */
  double s2[DY_MAXJ];      /* sum (tau_meas - shift)^2 */
  double maxerr;           /* largest |e| */
  int maxjoint;            /* 0-based */
  long maxrow;             /* data row of the log */
  double maxt;
} dyvTorqueStats;

void dyv_stats_init(dyvTorqueStats* s, int n);
/* add one sample: measured and predicted torque (n each), its row and time */
void dyv_stats_add(dyvTorqueStats* s, const double* meas, const double* pred, long row, double t);
/* rms, rel_err_pct, r2 for joints 0..n-1 and, at index n, over all joints
 * (arrays of n+1). Empty stats give NaN. */
void dyv_stats_result(const dyvTorqueStats* s, double* rms, double* rel, double* r2);

/* Smallest eigenvalue of the symmetric n x n matrix H (not modified;
 * LAPACK dsyev on a copy). work: dyv_mineig_lwork(n) doubles. NaN if
 * LAPACK fails. */
int dyv_mineig_lwork(int n);
double dyv_mineig(const double* H, int n, double* work);

/* --------------------------------------------------------- the validator */
/* samples waiting for the batch kernels (validate.c) */
typedef struct dyvPending_ dyvPending;

typedef struct {
  const dyModel* m;
  dyData* d;
  dyvNeBase plan;
  double* par;             /* realisation (14n) for the torque, owned copy */
  double* dyn;             /* standard parameters (14n) of the inertia matrix and
                              the simulation, owned copy (par's values unless given) */
  dyvTorqueStats st;
  /* inertia matrix along the log */
  double mineig;           /* smallest eigenvalue seen */
  long mineig_row; double mineig_t;
  long not_pd;             /* samples with mineig <= 0 */
  double* H; double* work;
  /* forward simulation */
  double horizon;          /* [s]; <= 0: off */
  int sim_on;              /* a segment is running */
  double sim_t0, sim_tprev;
  double sim_q[DY_MAXJ], sim_qd[DY_MAXJ], sim_tau[DY_MAXJ];
  dyvSim* sim;             /* the integrator (verify/sim.h), on dyn */
  long sim_count, sim_segments, sim_fail;
  double sim_se[DY_MAXJ], sim_max[DY_MAXJ];
  long sim_maxrow[DY_MAXJ];
  /* up to DY_BATCH_LANES samples whose predicted torque and inertia
   * matrix wait for one call of the batch kernels: st, mineig, mineig_row,
   * mineig_t and not_pd include them only after dyv_validator_flush (or
   * dyv_validator_write, which flushes); the simulation fields are current
   * after every dyv_validator_add */
  dyvPending* pend;
} dyvValidator;

/* zero: structural zeros of par (14n) for the base-parameter NE, or NULL.
 * dyn: the standard parameters (14n) of the inertia matrix (CRBA) and the
 * simulation (ABA), NULL: par. The torque needs only the base parameters
 * (any realisation, the sparsest is fastest), while the articulated-body
 * inertias of ABA depend on the realisation: pass the standard parameters
 * a PARAMS file carries. Returns NULL on allocation failure. */
dyvValidator* dyv_validator_make(const dyModel* m, const double* par,
                                 const unsigned char* zero, const double* dyn, double horizon);
void dyv_validator_free(dyvValidator* v);
/* one log sample (uses q, qd, qdd, tau_raw, row, t): the simulation
 * steps at once; the torque prediction (dyv_nebase_rnea_batch) and the
 * inertia matrix (dy_crba_batch) wait until DY_BATCH_LANES samples are
 * buffered, then run for all of them in one call each, in sample order */
void dyv_validator_add(dyvValidator* v, const dyiSample* s);
/* Process the buffered samples now (into st, mineig, not_pd): call it
 * before reading those fields. Does nothing when none wait. */
void dyv_validator_flush(dyvValidator* v);
/* per joint "joint,rms,rel_err_pct,r2" then "all" to csv; the rest as
 * '#'-comment lines to notes (may be the same stream or NULL). Flushes
 * the buffered samples first, so the fields are current afterwards. */
void dyv_validator_write(dyvValidator* v, FILE* csv, FILE* notes);

/* -------------------------------------------- a sparse realisation */
/* A realisation map with as many structural zeros as possible, for the
 * base-parameter Newton-Euler: Ps = E_S B_S^-1 (row-major npar x nb, rows
 * outside the nb columns S of B zero), so that B Ps = 1 and pi = Ps beta
 * gives the same torques as any other realisation (a PARAMS file's P = B^+
 * is dense and would leave nothing to skip). S = the set's lead parameters
 * when they are all given and B_S is invertible (|B Ps - 1| <= 1e-9),
 * otherwise the columns chosen by QR with column pivoting of B.
 * 0, or -1 with err set. */
int dyv_sparse_P(double* Ps, const dyiBase* b, char* err, int errsz);

/* The sparse realisation par = Ps beta (14n, joint parameters beyond the
 * set zero) of base parameters beta (b->nb) and, if zero is not NULL, its
 * structural zeros (14n) for the base-parameter Newton-Euler. 0 or -1. */
int dyv_realise_sparse(const dyModel* m, const dyiBase* b, const double* beta, double* par,
                       unsigned char* zero, char* err, int errsz);

/* ------------------------------------------ k-fold cross-validation */
#define DYV_MAXFOLD 64
typedef struct {
  int K;                      /* folds */
  long N;                     /* samples in the log */
  dyvTorqueStats pooled;      /* every held-out sample, predicted by the
                                 model estimated without its fold */
  double fold_rel[DYV_MAXFOLD];  /* rel_err_pct over all joints, per fold */
  long fold_first[DYV_MAXFOLD];  /* first data row of each fold */
  long fold_last[DYV_MAXFOLD];
} dyvCrossVal;

/* k-fold cross-validation by time blocks of one log: the samples are cut
 * into K consecutive blocks; for each block the base parameters of set b
 * are estimated by ordinary least squares (ident/estimate.h) from the
 * other K-1 blocks (rows Y_b = Y P from dyi_regressor against the
 * preprocessed torque, as `identify` does), and the block is predicted by
 * the base-parameter Newton-Euler on the realisation P beta against its
 * unfiltered torque (realisation by dyv_sparse_P). The training rows come
 * from identify's row source (ident/identify.h dyiLogRows) with the block
 * as its held-out window. N: the log's samples when known (a pass already
 * made), else 0 (one more pass counts them). lr is rewound as needed (2K
 * passes). 2 <= K <= DYV_MAXFOLD. 0, or -1 with err set. */
int dyv_crossval(dyvCrossVal* out, const dyModel* m, const dyiBase* b,
                 dyiLogReader* lr, long N, int K, char* err, int errsz);
/* '#'-comment lines: pooled per-joint rms, rel_err_pct, r2 and per fold. */
void dyv_crossval_print(FILE* f, const dyvCrossVal* cv);

/* ------------------------------------------------- physical consistency */
typedef struct dyvPhys_ dyvPhys;

/* ------------------------------------------------------ the whole check */
/* Everything `dynid validate` reports, for standard parameters par (14n)
 * of the base set b: the torque is predicted on the sparse realisation
 * dyv_sparse_P (B par) (same torques, fewest operations); b may be NULL:
 * then the structural zeros are the exact zeros of par, the
 * physical-consistency check covers par itself, and there is no
 * cross-validation. carried = 0: par is one realisation of beta = B par
 * among many (P beta): the inertia matrix and the simulation use the
 * sparse one, and the consistency of beta is decided by the SDP
 * (dyv_phys_check). carried = 1: par is the standard parameters a PARAMS
 * file carries (ident/params.h): the inertia matrix and the simulation use
 * par itself, and its links are checked as they are (dyv_phys_carried, no
 * search). Reads the log at logpath (options lopt) once (plus 2K+1 passes
 * with folds = K >= 2), writes the metrics CSV and the comment lines to
 * out. horizon <= 0: no simulation. 0, or -1 with err set ("FILE:ROW:COL:
 * ..." for log errors). Nothing is written to out on failure before the
 * log is read. threads > 1: the log's CSV rows are parsed on a thread of
 * their own (dyi_log_readahead) while this one predicts; the output is the
 * same. */
int dyv_validate_log(FILE* out, const dyModel* m, const double* par, const dyiBase* b, int carried,
                     const char* logpath, const dyiLogOpt* lopt, double horizon, int folds,
                     int threads, char* err, int errsz);

typedef struct {
  double mass;             /* m */
  double com[3];           /* h / m (0 if m <= 0) */
  double pmom[3];          /* principal moments about the centre of mass, ascending */
  double tri;              /* min(I1 + I2 - I3, ...) over the three inequalities */
  double pi_mineig;        /* smallest eigenvalue of the pseudo-inertia */
  int ok;                  /* 1: m > 0, pmom > 0, triangle inequalities hold */
} dyvLinkPhys;

/* Consistency of one link's ten parameters (XX..M, model.h order). */
void dyv_link_phys(dyvLinkPhys* out, const double* par10);

struct dyvPhys_ {
  int n;
  int carried;             /* 1: given[] are the links of standard parameters a PARAMS
                              file carries, checked as they are (dyv_phys_carried) */
  int verdict;             /* 1 consistent, 0 inconsistent (both certified), 2 undecided */
  int given_ok[DY_MAXJ];   /* carried: link j passes dyv_phys_carried's test */
  int joints;              /* carried: the set has joint parameters (IA, FV, FC checked) */
  double joint_min;        /* ... their smallest IA, FV, FC */
  double dist;             /* squared relative distance of the closest consistent realisation */
  double lower;            /* its certified lower bound */
  dyvLinkPhys given[DY_MAXJ];   /* links of the given realisation */
  dyvLinkPhys best[DY_MAXJ];    /* links of the closest consistent realisation */
  double* best_par;        /* that realisation, 14n, owned (free with dyv_phys_free) */
};

/* Decide whether the base parameters beta = B pi0 (B row-major nb x npar,
 * npar = 10n or 14n; pi0 14n) have a physically consistent realisation
 * (dyi_consistent_check; joint parameters beyond npar keep pi0's values).
 * 0, or -1 on failure (err set). */
int dyv_phys_check(dyvPhys* out, const dyModel* m, const double* pi0, const double* B,
                   int nb, int npar, char* err, int errsz);
/* The standard parameters pi (14n) a PARAMS file carries, checked as they
 * are, without a search: each link by dyv_link_phys, consistent when
 * m > 0 and its pseudo-inertia has smallest eigenvalue >= -1e-9 tr(PI)
 * (so principal moments >= 0 and the triangle inequalities, to that
 * tolerance); with joint parameters (npar = 14n) also IA, FV, FC >= -1e-9.
 * verdict 1 when all pass, else 0; carried = 1; best_par NULL. */
void dyv_phys_carried(dyvPhys* out, const dyModel* m, const double* pi, int npar);
void dyv_phys_free(dyvPhys* p);
/* Human-readable report as '#'-comment lines: the verdict, then the links
 * of the given realisation and of the closest consistent one; for carried
 * parameters the verdict on them and one line per link (mass, centre of
 * mass in frame j and its distance from O_j, principal moments about it). */
void dyv_phys_print(FILE* f, const dyvPhys* p);

/* A time of the log as people read it: t rounded to the nanosecond, finer
 * than any log's time column resolves (a time scaled or shifted in floating
 * point would show 4.8e-18 s for 0 otherwise) [s]. */
double dyv_time_shown(double t);

#endif
