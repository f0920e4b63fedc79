/* SPDX-License-Identifier: MIT */
/* dynid verify: the joint-space inertia matrix from S.K. Lin's minimal
 * linear combinations ([LinFang99], Lin & Fang 1999), Formulations 1-5.
 *
 * The composite-body first moments chat_i and inertia tensors Jhat_i about
 * the local origins O_i are built from the MLC values alone (section 4,
 * Table VII): chat_i = k_i + l_i(q), Jhat_i = U_i + V_i(q), with the varying
 * parts l_i, V_i recursed from the tip; for the joints r..s-1 before the
 * first revolute joint s not parallel to the first revolute joint r, only
 * (Jhat_i)_33, chat_i and the scalar (t_ii^<r>)_z of eq. (29) are formed,
 * from U33, delta k, kappa1, kappa2 and mhat, as the MLCs do not hold the
 * rest. The standard parameters are never used.
 *   Formulation 1 (Table I, with eqs. 29-31 for r..s-1): the force and
 *     moment each composite body needs for a unit acceleration of its joint,
 *     carried down the chain frame by frame; D_ji = its joint component.
 *   Formulation 2 (Table II, with eq. 32 for i < s): D_ji in closed form in
 *     frame i from u_j^<i> and the vector O_j -> O_i in frame i.
 * Both return H = M(q) + diag(IA) when the set carries joint parameters,
 * else M(q). dyv_lin_inertia1_ops counts the multiplications and
 * additions Formulation 1 executes (dyv_lin_ops reads them).              */
#ifndef DYNID_LIN_INERTIA_H
#define DYNID_LIN_INERTIA_H

#include "core/model.h"
#include "ident/base.h"

typedef struct dyvLin_ dyvLin;

/* Prepare Lin's formulations for model m and base set b. If b is Lin's set
 * ("lin"), beta is read directly; for any other set the MLCs are obtained
 * as beta_lin = (B_lin P_b) beta (the map is formed here, once). The
 * geometric constants (sines of alpha, 2 a_j, u_r^<i>, ...) are computed
 * here, as the paper assumes. Owns its scratch: one per thread. NULL with
 * err on failure (a model outside Theorem 1, out of memory).             */
dyvLin* dyv_lin_make(const dyModel* m, const dyiBase* b, char* err, int errsz);
void dyv_lin_free(dyvLin* L);

/* Formulation 1: H (n x n, row-major, full symmetric) [kg m^2 | kg m | kg]
 * at joint positions q (n) from the base parameters beta (b->nb). */
void dyv_lin_inertia1(dyvLin* L, const double* beta, const double* q, double* H);

/* Formulation 2: same inputs and output. */
void dyv_lin_inertia2(dyvLin* L, const double* beta, const double* q, double* H);

/* Formulation 3 (Table III, eq. 21: Formulation 2 with shat_j^<i> = u_j^<i>
 * x (O_j -> O_i) in place of O_j -> O_i; eq. 32 rewritten with shat for
 * i < s), Formulation 4 (Table IV: Formulation 1 with every vector in the
 * last frame; the columns i < s as Formulation 1, eqs. 29-31) and
 * Formulation 5 (Table V, Appendix B: Formulation 1 driven by h_i, the
 * composite first moment about O_{i-1}; columns i < s as Formulation 1).
 * Same inputs and output as Formulation 1. */
void dyv_lin_inertia3(dyvLin* L, const double* beta, const double* q, double* H);
void dyv_lin_inertia4(dyvLin* L, const double* beta, const double* q, double* H);
void dyv_lin_inertia5(dyvLin* L, const double* beta, const double* q, double* H);

/* Formulation 1 with operation counting: the same code path as
 * dyv_lin_inertia1, adding the multiplications and additions/subtractions
 * it executes (composite first moments and inertia tensors of Table VII
 * included, i.e. the quantity of [LinFang99] Table VIII; sin/cos of q, the
 * armature diagonal and the mapping from a non-Lin set not counted) to the
 * counters of L. */
void dyv_lin_inertia1_ops(dyvLin* L, const double* beta, const double* q, double* H);

/* Formulation 2 with operation counting (same conventions). */
void dyv_lin_inertia2_ops(dyvLin* L, const double* beta, const double* q, double* H);

/* Formulations 3, 4 and 5 with operation counting (same conventions). */
void dyv_lin_inertia3_ops(dyvLin* L, const double* beta, const double* q, double* H);
void dyv_lin_inertia4_ops(dyvLin* L, const double* beta, const double* q, double* H);
void dyv_lin_inertia5_ops(dyvLin* L, const double* beta, const double* q, double* H);

/* What a formulation takes as on hand, counted: chat_i and Jhat_i by the
 * algorithm of Table VII, and for form 5 also h_i. The count of a
 * formulation minus this one is its Table VI count; this one alone for
 * form 1 is the Table VII algorithm's. */
void dyv_lin_onhand_ops(dyvLin* L, const double* beta, const double* q, int form);

/* The counters of L (since the last reset); reset != 0 zeroes them. */
void dyv_lin_ops(dyvLin* L, long* mul, long* add, int reset);

/* Executed counts on model m (Lin's set of its nominal parameters, a
 * generic state), M then A: each formulation in full (with Table VII), the
 * same minus what it takes as on hand (the quantity of Table VI) and the
 * Table VII algorithm alone. 0, or -1 with err. */
typedef struct {
  long total[5][2], table6[5][2], table7[2];
} dyvLinCounts;
int dyv_lin_counts(const dyModel* m, dyvLinCounts* c, char* err, int errsz);

/* The paper's count [LinFang99] of table 6 (form 1-5), 7 (form 0) or 8
 * (form 1-2) for manipulator type 1 or 2 with n joints; -1 if none. */
int dyv_lin_paper_count(int table, int form, int type, int n, double* mul, double* add);

/* 1: all joints revolute (Type 1), 2: joint 3 prismatic, the others
 * revolute (Type 2), else 0 */
int dyv_lin_type(const dyModel* m);

/* The counts of model m and of the same joints in a general geometry
 * (dyv_general_geometry) as CSV rows "name,mul,add,paper_formula,
 * paper_mul,paper_add" beside the paper's Tables VI, VII, VIII. 0 or -1. */
#include <stdio.h>
int dyv_lin_opcount_report(FILE* f, const dyModel* m);

#endif
