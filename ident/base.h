/* SPDX-License-Identifier: MIT */
/* dynid ident: base parameters (minimal linear combinations, MLCs).
 *
 * A base set maps the full parameter vector pi (npar = 10n or 14n) to the
 * nb base parameters beta = B pi such that Y(q,qd,qdd) = Y_b(q,qd,qdd) B for
 * every state, with Y_b of full column rank over exciting data. P (npar x nb)
 * satisfies B P = 1, so Y_b = Y P and pi = P beta is a realisation of beta
 * (a standard-parameter vector with the same torques).
 *
 * Three sets (README.md, Parameters): qr (numerical: QR with column
 * pivoting of the stacked regressor), khalil (Khalil-Mayeda grouping rules
 * in closed form), lin (S.K. Lin's minimal linear combinations, [LinFang99]
 * Theorem 1). Every set is proved by the QR rank test before it is used. */
#ifndef DYNID_BASE_H
#define DYNID_BASE_H

#include "core/model.h"

/* The kind of a base set. The command line and the statistics files spell
 * the computed ones qr, khalil, lin (dyi_base_set_parse, the one parser);
 * a set read back from a PARAMS file's expressions is DYI_SET_FILE. */
typedef enum { DYI_SET_NONE = -1, DYI_SET_QR = 0, DYI_SET_KHALIL, DYI_SET_LIN, DYI_SET_FILE } dyiBaseSet;

/* The set spelled name: "qr", "khalil" or "lin" (exactly), else
 * DYI_SET_NONE with err (if not NULL) "unknown base-parameter set 'NAME'
 * (qr, khalil or lin)". */
dyiBaseSet dyi_base_set_parse(const char* name, char* err, int errsz);
/* The spelling of a set: "qr", "khalil", "lin", "file" ("?" otherwise). */
const char* dyi_base_set_name(dyiBaseSet set);

/* The kinds of base parameter of a lin set: Lin's minimal linear
 * combinations ([LinFang99] Theorem 1, base_lin.c: U33_j, kx_j, ky_j,
 * U11m22_j, U12_j, U13_j, U23_j, mhat_j, kz_j, kappa1_j, kappa2_j) and the
 * joint parameters it appends (IAj FVj FCj FOj). */
typedef enum { DYI_LIN_U33, DYI_LIN_KX, DYI_LIN_KY, DYI_LIN_U1122, DYI_LIN_U12, DYI_LIN_U13,
               DYI_LIN_U23, DYI_LIN_MHAT, DYI_LIN_KZ, DYI_LIN_KAP1, DYI_LIN_KAP2,
               DYI_LIN_IA, DYI_LIN_FV, DYI_LIN_FC, DYI_LIN_FO } dyiLinKind;

typedef struct dyiBase_ {
  dyiBaseSet set;       /* how it was made */
  int friction;         /* 1: joint parameters included (npar = 14n) */
  int npar;             /* full parameters: 10n or 14n */
  unsigned joint_keep;  /* which joint parameters the set has, bit k = kind k of
                           IA FV FC FO (15: all; 0 without friction): the others
                           are taken as zero (dyi_base_keep_joint) */
  int nb;               /* base parameters */
  char (*name)[32];     /* name of each base parameter (nb) */
  double* B;            /* beta = B pi, row-major (nb x npar) */
  double* P;            /* Y_b = Y P, pi = P beta, row-major (npar x nb) */
  int* lead;            /* full-parameter index each base parameter is named
                           after / grows, -1 if none (nb) */
  int* lin_kind;        /* lin sets: the dyiLinKind of each base parameter,
                           -1 in the other sets (nb) */
  int* lin_joint;       /* lin sets: its joint, 0-based (-1 elsewhere) (nb) */
  /* proof by the QR rank test (filled by dyi_base_verify) */
  int rank;             /* numerical rank of the stacked random regressor */
  double rank_gap;      /* |R_rr| / |R_r+1,r+1| at the rank decision */
  double repro_err;     /* max |Y - Y_b B| / max |Y| over fresh random states */
  double bp_err;        /* max |B P - 1| */
  char note[512];       /* what the closed-form rules missed and the QR test
                           reduced numerically ("" if nothing) */
  double* fix;          /* standard parameters held at a value instead of estimated
                           (--fix NAME=VALUE; --drop NAME holds at 0): fix[k] the value
                           [unit of parameter k], NaN where estimated (npar); NULL:
                           none held (dyi_base_fix) */
} dyiBase;

/* Compute a base set for model m: DYI_SET_QR, _KHALIL or _LIN. Returns a
 * new set (free with dyi_base_free), or NULL with err set. The set is
 * verified (dyi_base_verify) and NULL is returned if it fails the test. */
dyiBase* dyi_base_make(const dyModel* m, dyiBaseSet set, int friction,
                         char* err, int errsz);
void dyi_base_free(dyiBase* b);

/* Identify only some joint parameters (`--friction=fv,fc,fo`, e.g. for a
 * link-side torque sensor that does not see the rotor inertia): keep is a
 * bit mask over the kinds IA FV FC FO (bit k for kind k of model.h). The
 * others are zero: their columns of B are cleared, base parameters left
 * without a coefficient (IA_j alone) dropped, P recomputed and the set
 * proved again by the QR rank test on the regressor without those
 * columns. No change for keep = 15 or a set without friction. 0, or -1
 * with err set. */
int dyi_base_keep_joint(const dyModel* m, dyiBase* b, unsigned keep, char* err, int errsz);

/* Hold standard parameters at given values instead of estimating them
 * (`--fix NAME=VALUE`, `--drop NAME` = `--fix NAME=0`): k[i] (full-parameter
 * index, model.h order) at val[i] [its unit], i < nk. The identification
 * model becomes
 *     tau - Y_fix pi_fix = Y_rest pi_rest,
 * so each held parameter's column of B is cleared (it is in no base
 * parameter), base parameters left without a coefficient are removed, one
 * that lost the parameter it was named after is renamed after its largest
 * remaining term (khalil, qr: NAME + "R"), P = B^+ is recomputed and the set
 * proved again by the QR rank test on the regressor without those columns.
 * b->fix records the values: the row stage (identify.h) moves Y_fix pi_fix
 * to the torque side, the PARAMS file records them and dyi_params_realise
 * puts them back into pi. Refused (-1, err saying why, naming the
 * parameter): an index out of the set (a joint parameter without
 * --friction or of a kind --friction=LIST leaves out), a parameter that is
 * in no base parameter (its regressor column is zero, or it is grouped
 * away: holding it changes nothing), a parameter given twice, a value not
 * finite, and a set whose expressions become dependent (a closed-form set
 * on special geometry: --set qr then). (ident/base_fix.c) */
int dyi_base_fix(const dyModel* m, dyiBase* b, const int* k, const double* val, int nk, char* err, int errsz);

/* The held parameters of b as "NAME=VALUE, NAME=VALUE" (%.17g values;
 * "" when none), the form dyi_base_fix_parse reads back. Returns the
 * length needed (as snprintf). (ident/base_fix.c) */
int dyi_base_fix_text(const dyModel* m, const dyiBase* b, char* buf, int bufsz);
/* B with one row e_k appended per held parameter k ((nb + held) x npar,
 * row-major, malloc'd; the count of rows in *nrows): for checks over
 * realisations pi with B pi = beta that must keep the held values. NULL
 * (and *nrows = nb) when b holds none or out of memory. (ident/base_fix.c) */
double* dyi_base_held_B(const dyiBase* b, int* nrows);

/* Parse "NAME=VALUE, ..." (as written by dyi_base_fix_text) into indices
 * and values (room for DY_NPL*DY_MAXJ): the count, or -1 with err naming
 * the bad item. */
int dyi_base_fix_parse(const dyModel* m, const char* text, int* k, double* val, char* err, int errsz);

/* Parse a comma-separated list of joint-parameter kinds (ia, fv, fc, fo,
 * any case) into a bit mask; NULL means all four. 0, or -1 with the
 * offending word in bad. */
int dyi_friction_kinds(const char* list, unsigned* keep, char* bad, int badsz);

/* Allocate an empty set of nb base parameters over npar full parameters
 * (B, P zeroed, lead, lin_kind, lin_joint = -1). NULL on failure.
 * (ident/base_common.c) */
dyiBase* dyi_base_make_empty(dyiBaseSet set, int nb, int npar, int friction);
/* The rows of B left without a coefficient (every entry 0, after columns
 * were cleared) removed, the others moved up with their names and leads;
 * b->nb updated (P is not: prove the set again). */
void dyi_base_drop_empty(dyiBase* b);

/* Lin's set ([LinFang99], Theorem 1), unverified; used by dyi_base_make.
 * (ident/base_lin.c) NULL with err on failure. */
dyiBase* dyi_base_lin(const dyModel* m, int friction, char* err, int errsz);

/* The QR rank test: stack the regressor over random states (seeded),
 * compare the rank with nb and check Y = Y_b B on fresh states. 0 if the
 * set passes; -1 with err saying what fails. Fills rank, rank_gap,
 * repro_err. */
int dyi_base_verify(const dyModel* m, dyiBase* b, char* err, int errsz);

/* Expression of base parameter i as "COEF*NAME + ..." (README.md,
 * Parameters: coefficient omitted when 1, %.17g numbers, round-off zeros
 * dropped). Writes at most bufsz bytes; returns the length needed. */
int dyi_base_expr(const dyModel* m, const dyiBase* b, int i, char* buf, int bufsz);
/* The same, with shortest = 1 each coefficient in the fewest digits that
 * read back as the same double (0.632*MZ3 rather than
 * 0.63200000000000001*MZ3): for people (the report); files keep %.17g. */
int dyi_base_expr_fmt(const dyModel* m, const dyiBase* b, int i, int shortest, char* buf, int bufsz);

/* Parse an expression over full-parameter names into a row of npar
 * coefficients. 0, or -1 with err describing the bad token. */
int dyi_expr_parse(const dyModel* m, int npar, const char* expr, double* row,
                   char* err, int errsz);

/* Tolerances of the QR rank test (documented in base.c):
 * columns are scaled to unit norm (norm <= DYI_ZERO_COL * largest: a zero
 * column, not identifiable); rank = number of |R_kk| > DYI_RANK_TOL * |R_11|
 * after dgeqp3; dependency coefficients below DYI_COEF_TOL (in the scaled
 * columns) are printed as zero. */
#define DYI_ZERO_COL 1e-10
#define DYI_RANK_TOL 1e-8
#define DYI_COEF_TOL 1e-10

/* P = B^+ = B^T (B B^T)^-1 (minimum-norm right inverse, so B P = 1), by
 * Cholesky (LAPACKE dpotrf/dpotrs). 0, or -1 with err if the rows of B are
 * linearly dependent. */
int dyi_base_pinv(dyiBase* b, char* err, int errsz);

/* The non-zeros of P (npar x nb, row-major) column by column: the rows and
 * values of column c at pk, pv [pstart[c], pstart[c+1]), in row order;
 * entries with |P| <= tol max |P| are left out (tol = DYI_P_ZERO of
 * estimate.h: as dyi_base_mask; tol = 0: the exact zeros only). pstart:
 * nb + 1 entries, pk and pv: room for npar nb. Returns the number of non-zeros. */
int dyi_base_sparse(const dyiBase* b, double tol, int* pstart, int* pk, double* pv);

/* Stack the regressor over ns random states drawn with seed (revolute q
 * uniform in its limits or [-pi, pi], prismatic q in its limits or
 * [-0.5, 0.5] m, qd in [-2, 2], qdd in [-5, 5]) into Y, column-major,
 * (ns n) x npar, npar = 10n or 14n with friction. Y: caller's array. */
void dyi_base_stack(const dyModel* m, int friction, int ns, unsigned long long seed,
                    double* Y);

/* Number of random samples used by the rank test: 30 npar / n (>= 40). */
int dyi_base_nsamples(const dyModel* m, int friction);

/* The identifiability report of set b, one '#' comment line per standard
 * parameter: identifiable alone (as which base parameter), only in
 * combination (with which base parameters), not identifiable (its
 * regressor column is zero) and why, where the Khalil rules say, or held
 * at a value (dyi_base_fix). Returns
 * the number of lines written. */
#include <stdio.h>
int dyi_base_report(FILE* f, const dyModel* m, const dyiBase* b);

#endif
