/* SPDX-License-Identifier: MIT */
/* dynid ident: a payload (a rigid load fixed to the model's tip frame)
 * identified from a log recorded with the load on, given the arm's own
 * identified parameters (`dynid payload`).
 *
 * The load's standard parameters in the tip frame T (dyModel.tip_T: frame n
 * -> tip frame, R row-major then p, the tip origin and axes in frame n):
 *     phi_T = (XX XY XZ YY YZ ZZ, MX MY MZ, M)
 * J_T = [XX XY XZ; XY YY YZ; XZ YZ ZZ] the inertia tensor about the tip
 * origin in tip axes [kg m^2] (tensor entries, as URDF's ixy), h_T = m c_T
 * the first moment [kg m], M = m the mass [kg]. Fixed to link n, the load
 * adds to link n's standard parameters (frame n, model.h order)
 *     phi_n = A(R, p) phi_T
 * with, for h' = R h_T (the first moment about the tip origin in frame-n
 * axes) and every body point x = p + y (y from the tip origin):
 *     m_n  += m
 *     h_n  += R h_T + m p
 *     J_n  += R J_T R^T + m (|p|^2 I - p p^T) + 2 (p . h') I - p h'^T - h' p^T
 * (the parallel-axis shift from the tip origin to O_n of a body whose first
 * moment about the tip origin is h'), linear in phi_T. The torque it adds is
 *     tau_load = Y_n(q, qd, qdd) A phi_T                            [N m|N]
 * Y_n the 10 columns of link n of the regressor (regressor.h). The load is
 * estimated from the residual tau_measured - tau_arm(q, qd, qdd) (the arm's
 * torque from its identified parameters, friction included) by least
 * squares on W = Y_n A stacked over the log:
 *     phi_T = argmin || r - W phi ||^2,  Cov(phi_T) = sigma^2 (W^T W)^-1,
 *     sigma^2 = ||r - W phi||^2 / (equations - rank).
 * Which of the 10 the log determines: the rank of W after scaling its
 * columns to unit norm (singular values below 1e-9 of the largest are
 * zero); a parameter is determined when its axis is orthogonal to the null
 * space of W (its null-space component below 1e-6); the others are
 * undetermined and get no value. The rows are folded into one 11 x 11 QR
 * triangle of [W r] (bounded memory, any log length).
 *
 * Physical form: m, c = h_T / m [m] (centre of mass in the tip frame),
 * I_c = J_T - (|h|^2 I - h h^T) / m [kg m^2] (about the centre of mass,
 * tip-frame axes); standard deviations by first-order propagation
 * (Jacobian of this map) of Cov(phi_T). */
#ifndef DYNID_PAYLOAD_H
#define DYNID_PAYLOAD_H

#include "core/model.h"

/* A (10 x 10, row-major: A[i*10 + k] = d phi_n_i / d phi_T_k) of the tip
 * transform T (12: R row-major, then p [m]), as above. */
void dyi_payload_map(const double T[12], double A[100]);

/* phi (10, model.h order, about the tip origin) of a body of mass m [kg],
 * centre of mass c [m] and inertia Ic about it (six entries xx xy xz yy yz
 * zz, tensor entries [kg m^2]), all in the same frame:
 *     h = m c,  J = Ic + m (|c|^2 I - c c^T). */
void dyi_payload_phys_to_std(double m, const double c[3], const double Ic[6], double phi[10]);

/* The inverse: phys = (m, cx, cy, cz, ixx, ixy, ixz, iyy, iyz, izz) from
 * phi (m = M must not be 0); Jac (NULL: not wanted) the 10 x 10 Jacobian
 * d phys_i / d phi_k, row-major. */
void dyi_payload_std_to_phys(const double phi[10], double phys[10], double* Jac);

/* The names of phys entries, "m", "cx", ..., "izz" (k = 0..9). */
const char* dyi_payload_phys_name(int k);

typedef struct dyiPayload_ dyiPayload;

/* An estimator for model m (its tip_T) with the arm's standard parameters
 * arm_par (14n, friction included, as dy_rnea takes them; copied). NULL
 * with err on failure. */
dyiPayload* dyi_payload_make(const dyModel* m, const double* arm_par, char* err, int errsz);
void dyi_payload_free(dyiPayload* p);

/* One sample (n each; qd, qdd may not be NULL): the n equations
 * r_i = tau_i - tau_arm_i(q, qd, qdd) = (Y_n A)_i phi_T folded in. */
void dyi_payload_add(dyiPayload* p, const double* q, const double* qd, const double* qdd, const double* tau);
/* samples added so far */
long dyi_payload_samples(const dyiPayload* p);

typedef struct {
  long samples, equations;
  int nfree;            /* parameters estimated: 10, 9 with the mass fixed */
  int rank;             /* combinations of them the log determines (rank of W) */
  double cond;          /* condition number of the column-scaled W on its rank */
  int det[10];          /* phi_T k: 1 determined, 0 undetermined, 2 fixed (the mass) */
  double phi[10];       /* phi_T: determined (and fixed) entries; NaN for undetermined */
  double cov[100];      /* Cov(phi_T) [units of phi_i phi_k], row-major; 0 on fixed and
                           undetermined rows and columns */
  double sigma;         /* residual std of one equation [N m|N] (NaN: no redundancy) */
  double rel_resid;     /* ||r - W phi|| / ||r|| (r the arm's residual torque) */
  double r_rms;         /* RMS of r over the equations [N m|N] */
  int phys_det[10];     /* physical entries: 1 determined, 2 fixed, 0 undetermined (also
                           when the mass is not positive: no centre of mass) */
  double phys[10];      /* m, c, Ic (NaN when undetermined) */
  double phys_std[10];  /* first-order std (0 for the fixed mass, NaN when undetermined) */
  /* dyi_payload_consistent only (0 otherwise) */
  int consistent;       /* 1: the plausible estimate below */
  int certified;        /* 1: the solver's optimality certificate holds (consistent.h) */
  double radius;        /* the bounding sphere's radius [m] */
  double margin;        /* smallest eigenvalue of the load's pseudo-inertia [SI] */
  double rss_rise_pct;  /* its residual sum of squares above least squares' [%] */
} dyiPayloadFit;

/* Solve on what was added: mass > 0 fixes M at mass [kg] and estimates the
 * other 9; mass NaN (or <= 0) estimates all 10. 0, or -1 with err (fewer
 * equations than parameters, a LAPACK failure). */
int dyi_payload_solve(const dyiPayload* p, double mass, dyiPayloadFit* fit, char* err, int errsz);

/* The plausible load (`dynid payload --consistent`): the same residual
 * torque fitted by phi_T subject to
 *     PI(phi_T) - diag(m s^2, m s^2, m s^2, 0) >= 0   (s = DYI_PAYLOAD_THICK)
 *     tr(Q PI) >= 0, Q for the sphere of radius R about the tip origin
 *     m > 0 (or m = mass when mass > 0)
 * PI the load's 4x4 pseudo-inertia [WensingKimSlotine18]: a mass
 * distribution inside the sphere, its inertia about the centre of mass
 * positive definite (principal moments at least 2 m s^2) and satisfying
 * the triangle inequalities, its centre of mass within R of the tip
 * origin. Solved as consistent.h's semidefinite program (one body, K = 1,
 * no prior: in directions the log does not see, the smallest parameters
 * the constraints allow), with the data term ||W phi - r||^2 from the same
 * QR triangle. Every entry is then determined (phys_det 1, the fixed mass
 * 2); phys_std NaN (a constrained estimate has no first-order std). 0, or
 * -1 with err (too few equations, radius <= s, a solver failure). */
#define DYI_PAYLOAD_THICK 0.002   /* s [m]: a load at least ~7 mm thick */
#define DYI_PAYLOAD_RADIUS 0.3    /* default R [m] */
int dyi_payload_consistent(const dyiPayload* p, double mass, double radius, dyiPayloadFit* fit, char* err,
                           int errsz);

/* A payload CSV as `dynid payload` writes it: rows name,value,std with the
 * ten names of dyi_payload_phys_name, each once, in any order (header
 * name,value,std; '#' comments skipped). phys, std (10 each, units as
 * above): an empty value is undetermined (det[k] = 0, phys NaN), an empty
 * std is none (NaN, e.g. the plausible load). 0, or -1 with err
 * ("FILE:ROW:COL: ...": an unknown name, a row given twice, a name
 * missing, a value that is not a finite number). */
int dyi_payload_read(const char* path, double phys[10], double std[10], int det[10], char* err, int errsz);

/* A copy of m with a load of standard parameters phi_T (tip frame, order
 * above) merged into link n: par_n += A(tip_T) phi_T. Caller frees
 * (dy_free_model); NULL when out of memory. */
dyModel* dyi_payload_loaded_model(const dyModel* m, const double phi_T[10]);

#endif
