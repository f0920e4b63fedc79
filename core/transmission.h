/* SPDX-License-Identifier: MIT */
/* dynid core: transmissions between motors and joints (gears, coupled
 * wrists), and the dynamics of the motors that couple joints.
 *
 * A transmission is an n x n matrix R, row k for motor k (row-major):
 *     qd_m = R qd          motor velocity from joint velocities [rad/s]
 * so q = R^-1 q_m, qd = R^-1 qd_m, qdd = R^-1 qdd_m, and by virtual work
 * the joint torque of motor torques tau_m is
 *     tau = R^T tau_m                                              [N m|N]
 * A diagonal R holds gear ratios; a row with more than one non-zero is a
 * motor that turns several joints (a coupled wrist, a differential).
 *
 * A coupled motor k adds its own dynamics, three parameters after the
 * joint ones of the full vector (model.h), in the order of the coupled
 * motors: IAMk rotor inertia [kg m^2], FVMk viscous friction [N m s/rad],
 * FCMk Coulomb friction [N m], all on the motor side:
 *     tau += R_k^T (IAMk R_k qdd + FVMk R_k qd + FCMk sign(R_k qd))
 * (R_k the k-th row of R). Motors whose row has one non-zero need none:
 * their inertia and friction are a joint's IA, FV, FC scaled by r_kk^2. */
#ifndef DYNID_TRANSMISSION_H
#define DYNID_TRANSMISSION_H

#include "core/model.h"

/* Condition number (1-norm) above which R is refused as singular. */
#define DY_TRANS_MAXCOND 1e12

/* Read R for an n-joint model from a CSV file: n rows of n numbers (row k
 * for motor k), an optional header (a first row without any number), '#'
 * comments and blank lines skipped. The matrix is checked as by
 * dy_trans_invert. 0, or -1 with err "FILE:ROW:COL: what" (a cell that is
 * not a finite number, a row without n numbers, not n rows, a singular R). */
int dy_trans_read(const char* path, int n, double* R, char* err, int errsz);

/* Rinv = R^-1 (n x n row-major each) by LU with partial pivoting, and the
 * 1-norm condition number ||R||_1 ||R^-1||_1 in *cond (inf when a pivot is
 * zero). 0, or -1 when R is singular (cond above DY_TRANS_MAXCOND or not
 * finite). */
int dy_trans_invert(const double* R, int n, double* Rinv, double* cond);

/* 1 if motor k's row of R has more than one non-zero entry. */
int dy_trans_coupled(const double* R, int n, int k);

/* Give m the transmission R (copied; NULL removes it): m->trans, and the
 * coupled motors m->mot_k[0..nmot-1] whose parameters IAMk FVMk FCMk extend
 * the full vector (dy_npar). Their nominal values are zero. 0, or -1 with
 * err set when R is singular. */
int dy_set_transmission(dyModel* m, const double* R, char* err, int errsz);

/* out = A x, A n x n row-major (out may not alias x). */
void dy_trans_mul(double* out, const double* A, const double* x, int n);
/* out = A^T x (out may not alias x). */
void dy_trans_mulT(double* out, const double* A, const double* x, int n);

/* The coupled motors' torque added to tau (n): for each coupled motor k,
 *   tau += R_k^T (IAMk R_k qdd + FVMk R_k qd + FCMk sign(R_k qd))  [N m|N]
 * with par the full vector (dy_npar entries), qd, qdd joint velocities and
 * accelerations (NULL: zero), sign(0) = 0. Nothing without coupled motors. */
void dy_motor_tau(const dyModel* m, const double* par, const double* qd, const double* qdd,
                  double* tau);

/* The motors' inertia added to the joint-space inertia matrix H (n x n):
 *   H += sum_k IAMk R_k^T R_k                                   [kg m^2] */
void dy_motor_inertia(const dyModel* m, const double* par, double* H);

#endif
