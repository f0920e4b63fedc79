/* SPDX-License-Identifier: MIT */
/* dynid verify: the base-parameter Newton-Euler for many states per call
 * (ne_base.h, dyv_nebase_rnea_batch).
 *
 * The lane form of verify/ne_base.c in the style of core/batch.c: states
 * in chunks of DY_BATCH_LANES (8), every per-link quantity of a chunk held
 * as [joint][component][lane] in the dyBatch scratch (w, wd: the link's
 * rates; vd: u = vd + U p of the next link, as ne_base.c carries it; F, N:
 * the link wrenches; p: O_j's y, z in frame j-1; tau), every arithmetic
 * statement in a loop over the 8 lanes of a fixed trip count, which the
 * compiler vectorises; the chunk kernel is built for AVX-512F, AVX2 and
 * SSE2 (DY_CLONES) and chosen at load time.
 *
 * What the plan knows is decided per joint, outside the lane loops: the
 * twist class (each rotation's loop is compiled once per class, with
 * exact signed permutations for the special ones: kernels.h dyv_rot_t and
 * friends, the very functions ne_base.c calls), the structurally zero
 * parameters (a term of a zero parameter has no loop at all), the zero
 * components of p_j and of MS_j (the columns of U nobody reads are not
 * formed), the joint terms of a joint without friction, joint 1's trig
 * when nothing reads it. The compile-time kinds of ne_base.c (fkind,
 * bkind) select the same terms as its generic step, which this file
 * follows; each lane performs the operations of dyv_nebase_rnea in the same
 * order, with one difference: a wrench sum starts at an exact 0 where
 * ne_base.c assigns its first term, which can change nothing but the sign
 * of a zero. So tau equals dyv_nebase_rnea's state by state. */
#include "verify/ne_base.h"
#include "verify/kernels.h"
#include "core/transmission.h"
#include "core/dynamics.h"
#include "core/util.h"
#include "core/mathu.h"
#include <math.h>
#include <stddef.h>
#include <string.h>

#define B DY_BATCH_LANES
#define NBB_INL static inline __attribute__((always_inline))

/* the temporaries of one joint's step, [component][lane] */
typedef struct {
  double vd[3][B];          /* vd_j (frame j) */
  double U[9][B];           /* U_j = [wd x] + [w x]^2, row-major, the columns used */
  double w01[B], w02[B], w12[B];   /* w_x w_y, w_x w_z, w_y w_z */
  double f[3][B], nn[3][B]; /* the wrench carried down the backward pass */
  double rf[3][B];          /* R f of the backward step */
} nbbTmp;

/* a 3-vector of one lane */
typedef struct { double x, y, z; } nbbV3;

/* R^T v, R v and their special cases for twist class k (kernels.h
 * dyv_rot_t, dyv_rot_n, dyv_rot_t_z, dyv_rot_n_z: the functions ne_base.c
 * calls, on one lane's scalars) */
NBB_INL nbbV3 rot_t3(nbbV3 v, double ct, double st, int k, double ca, double sa) {
  const double a[3] = {v.x, v.y, v.z};
  double r[3];
  dyv_rot_t(NULL, r, a, ct, st, k, ca, sa);
  return (nbbV3){r[0], r[1], r[2]};
}
NBB_INL nbbV3 rot_n3(nbbV3 v, double ct, double st, int k, double ca, double sa) {
  const double a[3] = {v.x, v.y, v.z};
  double r[3];
  dyv_rot_n(NULL, r, a, ct, st, k, ca, sa);
  return (nbbV3){r[0], r[1], r[2]};
}
NBB_INL nbbV3 rot_t3_z(double v2, double ct, double st, int k, double ca, double sa) {
  double r[3];
  dyv_rot_t_z(NULL, r, v2, ct, st, k, ca, sa);
  return (nbbV3){r[0], r[1], r[2]};
}
NBB_INL double rot_n3_z(nbbV3 v, double ct, double st, int k, double ca, double sa) {
  const double a[3] = {v.x, v.y, v.z};
  return dyv_rot_n_z(NULL, a, ct, st, k, ca, sa);
}

/* a loop over the lanes with the twist class as the constant k: CALL(k, 0)
 * per class (kernels.h DYV_BY_TWIST), each call a lane loop */
#define NBB_BY_TWIST(cls, CALL) DYV_BY_TWIST(cls, CALL)

/* joint frames: cos, sin theta_j of each lane (dyu_sincos8 of theta_0 + q, as
 * ne_base.c; a prismatic joint's are the plan's constants; joint 1's are
 * skipped when the plan says nothing reads them; padding lanes nb.. hold
 * the zero state) and p_j = (a, -sa d, ca d) with the exact sa,
 * ca of a special twist: the plan's constant for a revolute joint, d moved
 * by q for a prismatic one (its y, z only where the plan's flags have them,
 * else 0) */
DY_CLONES
static void nbb_frames(const dyvNeBase* pl, dyBatch* restrict W, int nb) {
  (void)nb;
  const dyModel* m = pl->m;
  for (int j = 0; j < pl->n; j++) {
    if (m->jnt_type[j] == DY_REVOLUTE) {
      const double th0 = m->dh_theta[j], p1 = pl->pc[3*j+1], p2 = pl->pc[3*j+2];
      const int trig = j > 0 || pl->trig0;
      if (trig) {
        double th[B];
        for (int b = 0; b < B; b++) th[b] = th0 + W->q[j][b];
        dyu_sincos8(W->st[j], W->ct[j], th);
      } else
        for (int b = 0; b < B; b++) { W->ct[j][b] = 1; W->st[j][b] = 0; }
      for (int b = 0; b < B; b++) { W->p[j][0][b] = p1; W->p[j][1][b] = p2; }
      continue;
    }
    double ca, sa;
    dyv_twist_cs(m, j, &ca, &sa);
    const double d0 = m->dh_d[j], ct = pl->ctc[j], st = pl->stc[j], msa = -sa;
    for (int b = 0; b < B; b++) { W->ct[j][b] = ct; W->st[j][b] = st; }
    if (pl->flags[j] & DYV_NB_PY) for (int b = 0; b < B; b++) W->p[j][0][b] = msa*(d0 + W->q[j][b]);
    else for (int b = 0; b < B; b++) W->p[j][0][b] = 0;
    if (pl->flags[j] & DYV_NB_PZ) for (int b = 0; b < B; b++) W->p[j][1][b] = ca*(d0 + W->q[j][b]);
    else for (int b = 0; b < B; b++) W->p[j][1][b] = 0;
  }
}

/* one lane of link j's rates (class k, rev: revolute; constants at every
 * call): the parent's w, wd and u rotated into frame j, vd = R^T u, then
 *   revolute   w = R^T w' + qd z,  wd = R^T wd' + (R^T w') x qd z + qdd z
 *   prismatic  w = R^T w',  wd = R^T wd',  vd += 2 (R^T w') x qd z + qdd z
 * and the products w01 = w_x w_y, w02, w12 */
NBB_INL void rates_lane(dyBatch* restrict W, nbbTmp* restrict T, int j, int b, int k, int rev,
                        double ca, double sa) {
  const double ct = W->ct[j][b], st = W->st[j][b], qdj = W->qd[j][b], qddj = W->qdd[j][b];
  nbbV3 vd = rot_t3((nbbV3){W->vd[j][0][b], W->vd[j][1][b], W->vd[j][2][b]}, ct, st, k, ca, sa);
  const nbbV3 wr = rot_t3((nbbV3){W->w[j][0][b], W->w[j][1][b], W->w[j][2][b]}, ct, st, k, ca, sa);
  nbbV3 wd = rot_t3((nbbV3){W->wd[j][0][b], W->wd[j][1][b], W->wd[j][2][b]}, ct, st, k, ca, sa);
  nbbV3 w = wr;
  if (rev) {
    w.z = wr.z + qdj;
    wd.x = wd.x + wr.y*qdj; wd.y = wd.y - wr.x*qdj; wd.z = wd.z + qddj;
  } else {
    const double q2 = 2*qdj;
    vd.x += q2*wr.y; vd.y -= q2*wr.x; vd.z += qddj;
  }
  W->w[j+1][0][b] = w.x; W->w[j+1][1][b] = w.y; W->w[j+1][2][b] = w.z;
  W->wd[j+1][0][b] = wd.x; W->wd[j+1][1][b] = wd.y; W->wd[j+1][2][b] = wd.z;
  T->vd[0][b] = vd.x; T->vd[1][b] = vd.y; T->vd[2][b] = vd.z;
  T->w01[b] = w.x*w.y; T->w02[b] = w.x*w.z; T->w12[b] = w.y*w.z;
}

/* link j's rates (rates_lane), one loop copy per twist class and joint type */
NBB_INL void nbb_rates(const dyvNeBase* pl, dyBatch* restrict W, nbbTmp* restrict T, int j) {
  const double ca = pl->m->cos_alpha[j], sa = pl->m->sin_alpha[j];
  const int rev = pl->m->jnt_type[j] == DY_REVOLUTE;
#define NBB_RATES_(k, b_) \
  if (rev) for (int b = 0; b < B; b++) rates_lane(W, T, j, b, k, 1, ca, sa); \
  else for (int b = 0; b < B; b++) rates_lane(W, T, j, b, k, 0, ca, sa)
  NBB_BY_TWIST(pl->m->twist[j], NBB_RATES_)
#undef NBB_RATES_
}

/* the columns of U_j = [wd x] + [w x]^2 selected by uc (bit k: column k,
 * read by MS_k of link j or p_k of link j+1):
 *   col 0 = (-w11 - w22, w01 + wd2, w02 - wd1)
 *   col 1 = (w01 - wd2, -w00 - w22, w12 + wd0)
 *   col 2 = (w02 + wd1, w12 - wd0, -w00 - w11) */
NBB_INL void nbb_umat(dyBatch* restrict W, nbbTmp* restrict T, int j, int uc) {
  if (uc & 1)
    for (int b = 0; b < B; b++) {
      const double w11 = W->w[j+1][1][b]*W->w[j+1][1][b], w22 = W->w[j+1][2][b]*W->w[j+1][2][b];
      T->U[0][b] = -w11 - w22; T->U[3][b] = T->w01[b] + W->wd[j+1][2][b];
      T->U[6][b] = T->w02[b] - W->wd[j+1][1][b];
    }
  if (uc & 2)
    for (int b = 0; b < B; b++) {
      const double w00 = W->w[j+1][0][b]*W->w[j+1][0][b], w22 = W->w[j+1][2][b]*W->w[j+1][2][b];
      T->U[1][b] = T->w01[b] - W->wd[j+1][2][b]; T->U[4][b] = -w00 - w22;
      T->U[7][b] = T->w12[b] + W->wd[j+1][0][b];
    }
  if (uc & 4)
    for (int b = 0; b < B; b++) {
      const double w00 = W->w[j+1][0][b]*W->w[j+1][0][b], w11 = W->w[j+1][1][b]*W->w[j+1][1][b];
      T->U[2][b] = T->w02[b] + W->wd[j+1][1][b]; T->U[5][b] = T->w12[b] - W->wd[j+1][0][b];
      T->U[8][b] = -w00 - w11;
    }
}

/* one lane of N = J wd + w x (J w) for a J with products of inertia (yy:
 * YY not structurally zero, a constant at every call), as ne_base.c sums it */
NBB_INL void jfull_lane(dyBatch* restrict W, int j, int b, const double J[6], int yy) {
  const double w0 = W->w[j+1][0][b], w1 = W->w[j+1][1][b], w2 = W->w[j+1][2][b];
  const double a0 = W->wd[j+1][0][b], a1 = W->wd[j+1][1][b], a2 = W->wd[j+1][2][b];
  const double XX = J[DY_XX], XY = J[DY_XY], XZ = J[DY_XZ], YZ = J[DY_YZ], ZZ = J[DY_ZZ];
  double jw1 = XY*w0 + YZ*w2, jd1 = XY*a0 + YZ*a2;
  if (yy) { const double YY = J[DY_YY]; jw1 += YY*w1; jd1 += YY*a1; }
  const double jw0 = XX*w0 + XY*w1 + XZ*w2, jw2 = XZ*w0 + YZ*w1 + ZZ*w2;
  W->N[j][0][b] = XX*a0 + XY*a1 + XZ*a2 + (w1*jw2 - w2*jw1);
  W->N[j][1][b] = jd1 + (w2*jw0 - w0*jw2);
  W->N[j][2][b] = XZ*a0 + YZ*a1 + ZZ*a2 + (w0*jw1 - w1*jw0);
}

/* one lane of MS_k's terms (k constant at every call): F += U column k MS_k;
 * MS_k e_k x vd: N_{k+1} -= MS_k vd_{k+2}, N_{k+2} += MS_k vd_{k+1} */
NBB_INL void ms_lane(dyBatch* restrict W, const nbbTmp* restrict T, int j, int b, int k, double x) {
  const int i1 = (k + 1) % 3, i2 = (k + 2) % 3;
  W->F[j][0][b] += T->U[k][b]*x; W->F[j][1][b] += T->U[3+k][b]*x; W->F[j][2][b] += T->U[6+k][b]*x;
  W->N[j][i1][b] -= x*T->vd[i2][b]; W->N[j][i2][b] += x*T->vd[i1][b];
}

/* the wrench of link j (flags f): F = M vd + U MS,
 * N = J wd + w x J w + MS x vd, only the terms of parameters that are not
 * structurally zero; a diagonal J's w x J w from the products of U:
 * ((ZZ - YY) w12, (XX - ZZ) w02, (YY - XX) w01) */
NBB_INL void nbb_wrench(const dyvNeBase* pl, const double* par, dyBatch* restrict W,
                        nbbTmp* restrict T, int j) {
  const int f = pl->flags[j];
  const double* pl10 = par + DY_NPAR_LINK*j;
  if (f & DYV_NB_M) {
    const double M = pl10[DY_M];
    for (int b = 0; b < B; b++) {
      W->F[j][0][b] = M*T->vd[0][b]; W->F[j][1][b] = M*T->vd[1][b]; W->F[j][2][b] = M*T->vd[2][b];
    }
  } else
    for (int b = 0; b < B; b++) W->F[j][0][b] = W->F[j][1][b] = W->F[j][2][b] = 0;
  if ((f & DYV_NB_J) && (f & DYV_NB_JOFF)) {
    /* read once (par may alias W); YY only where it is not structurally zero */
    const double J[6] = {pl10[DY_XX], pl10[DY_XY], pl10[DY_XZ], f & DYV_NB_YY ? pl10[DY_YY] : 0,
                         pl10[DY_YZ], pl10[DY_ZZ]};
    if (f & DYV_NB_YY) for (int b = 0; b < B; b++) jfull_lane(W, j, b, J, 1);
    else for (int b = 0; b < B; b++) jfull_lane(W, j, b, J, 0);
  } else if (f & DYV_NB_J) {
    const double XX = pl10[DY_XX], YY = pl10[DY_YY], ZZ = pl10[DY_ZZ];
    for (int b = 0; b < B; b++) {
      W->N[j][0][b] = XX*W->wd[j+1][0][b] + (ZZ - YY)*T->w12[b];
      W->N[j][1][b] = YY*W->wd[j+1][1][b] + (XX - ZZ)*T->w02[b];
      W->N[j][2][b] = ZZ*W->wd[j+1][2][b] + (YY - XX)*T->w01[b];
    }
  } else
    for (int b = 0; b < B; b++) W->N[j][0][b] = W->N[j][1][b] = W->N[j][2][b] = 0;
  if (f & DYV_NB_MSX) { const double x = pl10[DY_MX]; for (int b = 0; b < B; b++) ms_lane(W, T, j, b, 0, x); }
  if (f & DYV_NB_MSY) { const double x = pl10[DY_MY]; for (int b = 0; b < B; b++) ms_lane(W, T, j, b, 1, x); }
  if (f & DYV_NB_MSZ) { const double x = pl10[DY_MZ]; for (int b = 0; b < B; b++) ms_lane(W, T, j, b, 2, x); }
}

/* u_j = vd_j + U_j p_{j+1} (into vd[j+1]), the nonzero components of
 * p_{j+1} only (fn: link j+1's flags, 0 after the last link) */
NBB_INL void nbb_next_u(const dyvNeBase* pl, dyBatch* restrict W, const nbbTmp* restrict T, int j,
                        int fn) {
  for (int b = 0; b < B; b++) {
    W->vd[j+1][0][b] = T->vd[0][b]; W->vd[j+1][1][b] = T->vd[1][b]; W->vd[j+1][2][b] = T->vd[2][b];
  }
  if (fn & DYV_NB_PX) {
    const double p0 = pl->pc[3*(j+1)];
    for (int b = 0; b < B; b++) {
      W->vd[j+1][0][b] += T->U[0][b]*p0; W->vd[j+1][1][b] += T->U[3][b]*p0;
      W->vd[j+1][2][b] += T->U[6][b]*p0;
    }
  }
  if (fn & DYV_NB_PY)
    for (int b = 0; b < B; b++) {
      const double p1 = W->p[j+1][0][b];
      W->vd[j+1][0][b] += T->U[1][b]*p1; W->vd[j+1][1][b] += T->U[4][b]*p1;
      W->vd[j+1][2][b] += T->U[7][b]*p1;
    }
  if (fn & DYV_NB_PZ)
    for (int b = 0; b < B; b++) {
      const double p2 = W->p[j+1][1][b];
      W->vd[j+1][0][b] += T->U[2][b]*p2; W->vd[j+1][1][b] += T->U[5][b]*p2;
      W->vd[j+1][2][b] += T->U[8][b]*p2;
    }
}

/* one link of the forward pass (ne_base.c nb_fwd): rates, U, wrench, u */
DY_CLONES
static void nbb_link(const dyvNeBase* pl, const double* par, dyBatch* restrict W,
                      nbbTmp* restrict T, int j) {
  const int f = pl->flags[j], fn = j + 1 < pl->n ? pl->flags[j+1] : 0;
  nbb_rates(pl, W, T, j);
  nbb_umat(W, T, j, ((f >> 1) | (fn >> 6)) & 7);
  nbb_wrench(pl, par, W, T, j);
  nbb_next_u(pl, W, T, j, fn);
}

/* one lane of link 1 on a revolute joint 1 (ne_base.c nb_link1; class k,
 * gz: g along z_0, f, fn: link 1's and 2's flags, constants at every
 * call): w, wd along z_0 (qd_1, qdd_1), vd_1 = R^T (-g) (R^T (0, 0, -g_z)
 * when g is along z_0), only N_z = ZZ qdd + MX vd_y - MY vd_x (its force
 * and other moments reach no joint: F = 0, N_x = N_y = 0), and
 * u = vd_1 + U_1 p_2 with U_1 = [[-qd^2, -qdd, 0], [qdd, -qd^2, 0], [0, 0, 0]] */
NBB_INL void link1_lane(const dyvNeBase* pl, const double* pl10, dyBatch* restrict W, int b, int k,
                        int gz, int f, int fn) {
  const dyModel* m = pl->m;
  const double ct = W->ct[0][b], st = W->st[0][b], qd0 = W->qd[0][b], qdd0 = W->qdd[0][b];
  const double ca = m->cos_alpha[0], sa = m->sin_alpha[0];
  nbbV3 vd = gz ? rot_t3_z(-pl->g[2], ct, st, k, ca, sa)
                : rot_t3((nbbV3){-pl->g[0], -pl->g[1], -pl->g[2]}, ct, st, k, ca, sa);
  double nz = 0;
  if (f & DYV_NB_J) nz = pl10[0]*qdd0;
  if (f & DYV_NB_MSX) nz += pl10[1]*vd.y;
  if (f & DYV_NB_MSY) nz -= pl10[2]*vd.x;
  const double q2 = qd0*qd0, p0 = pl->pc[3], p1 = W->p[1][0][b];
  if (fn & DYV_NB_PX) { vd.x -= q2*p0; vd.y += qdd0*p0; }
  if (fn & DYV_NB_PY) { vd.x -= qdd0*p1; vd.y -= q2*p1; }
  for (int c = 0; c < 2; c++) {
    W->w[1][c][b] = 0; W->wd[1][c][b] = 0; W->F[0][c][b] = 0; W->N[0][c][b] = 0;
  }
  W->w[1][2][b] = qd0; W->wd[1][2][b] = qdd0; W->F[0][2][b] = 0; W->N[0][2][b] = nz;
  W->vd[1][0][b] = vd.x; W->vd[1][1][b] = vd.y; W->vd[1][2][b] = vd.z;
}

/* the flags of links 1 and 2 that link1_lane reads (J, MSX, MSY of link 1;
 * PX, PY of p_2) */
#define NBB_L1_FLAGS (DYV_NB_J | DYV_NB_MSX | DYV_NB_MSY)

/* link 1 on a revolute joint 1 (link1_lane), the twist class and the
 * direction of g constants of each loop copy */
DY_CLONES
static void nbb_link1(const dyvNeBase* pl, const double* par, dyBatch* restrict W) {
  const int fn = pl->n > 1 ? pl->flags[1] : 0;
  const int sel = (pl->flags[0] & NBB_L1_FLAGS) | ((fn >> 6) & 3) << 12;
  const int gz = pl->g[0] == 0 && pl->g[1] == 0;
  const double zm[3] = {par[DY_ZZ], par[DY_MX], par[DY_MY]};   /* read once (par may alias W) */
  /* the flags read at run time: one link per chunk, and a loop copy per
   * flag pattern made a body the compilers took minutes to build */
  const int f1 = sel & NBB_L1_FLAGS, p2 = (sel >> 12) << 6;
#define NBB_L1_(k, b_) \
  if (gz) for (int b = 0; b < B; b++) link1_lane(pl, zm, W, b, k, 1, f1, p2); \
  else for (int b = 0; b < B; b++) link1_lane(pl, zm, W, b, k, 0, f1, p2)
  NBB_BY_TWIST(pl->m->twist[0], NBB_L1_)
#undef NBB_L1_
}

/* the forward pass: the base at rest accelerating at -g (u_0 = -g), link 1
 * of a revolute joint 1 by nbb_link1, then every other link */
NBB_INL void nbb_forward(const dyvNeBase* pl, const double* par, dyBatch* restrict W,
                         nbbTmp* restrict T) {
  const int n = pl->n, rev0 = pl->m->jnt_type[0] == DY_REVOLUTE;
  const double g0 = -pl->g[0], g1 = -pl->g[1], g2 = -pl->g[2];
  for (int b = 0; b < B; b++) {
    W->w[0][0][b] = W->w[0][1][b] = W->w[0][2][b] = 0;
    W->wd[0][0][b] = W->wd[0][1][b] = W->wd[0][2][b] = 0;
    W->vd[0][0][b] = g0; W->vd[0][1][b] = g1; W->vd[0][2][b] = g2;
  }
  if (rev0) nbb_link1(pl, par, W);
  for (int j = rev0 ? 1 : 0; j < n; j++) nbb_link(pl, par, W, T, j);
}

/* tau_j = z . n (revolute) or z . f (prismatic) of the carried wrench,
 * + IA qdd + FV qd + FC sign(qd) + FO where the joint has friction */
NBB_INL void nbb_tau(const dyvNeBase* pl, const double* par, dyBatch* restrict W,
                     const nbbTmp* restrict T, int j) {
  if (pl->m->jnt_type[j] == DY_REVOLUTE) for (int b = 0; b < B; b++) W->tau[j][b] = T->nn[2][b];
  else for (int b = 0; b < B; b++) W->tau[j][b] = T->f[2][b];
  if (!(pl->flags[j] & DYV_NB_FRIC)) return;
  const double* pj = par + DY_NPAR_LINK*pl->n + DY_NPAR_JNT*j;
  const double IA = pj[DY_IA], FV = pj[DY_FV], FC = pj[DY_FC], FO = pj[DY_FO];
  for (int b = 0; b < B; b++) {
    const double qdj = W->qd[j][b];
    const double sg = (qdj > 0 ? 1.0 : 0.0) - (qdj < 0 ? 1.0 : 0.0);   /* sign(qd) */
    W->tau[j][b] += IA*W->qdd[j][b] + FV*qdj + FC*sg + FO;
  }
}

/* one lane of the step from joint j to j-1 (class k): f = F_{j-1} + R f,
 * nn = N_{j-1} + R nn, R f kept for the cross term p_j x R f */
NBB_INL void bwd_lane(const dyBatch* restrict W, nbbTmp* restrict T, int j, int b, int k,
                      double ca, double sa) {
  const double ct = W->ct[j][b], st = W->st[j][b];
  const nbbV3 rf = rot_n3((nbbV3){T->f[0][b], T->f[1][b], T->f[2][b]}, ct, st, k, ca, sa);
  const nbbV3 rn = rot_n3((nbbV3){T->nn[0][b], T->nn[1][b], T->nn[2][b]}, ct, st, k, ca, sa);
  T->f[0][b] = W->F[j-1][0][b] + rf.x; T->f[1][b] = W->F[j-1][1][b] + rf.y;
  T->f[2][b] = W->F[j-1][2][b] + rf.z;
  T->nn[0][b] = W->N[j-1][0][b] + rn.x; T->nn[1][b] = W->N[j-1][1][b] + rn.y;
  T->nn[2][b] = W->N[j-1][2][b] + rn.z;
  T->rf[0][b] = rf.x; T->rf[1][b] = rf.y; T->rf[2][b] = rf.z;
}

/* the backward step of joint j (ne_base.c nb_bwd): the carried wrench into
 * frame j-1, plus p_j x R f: x: (0, -p0 rf2, p0 rf1), y: (p1 rf2, 0,
 * -p1 rf0), z: (-p2 rf1, p2 rf0, 0), each where p_j has that component */
DY_CLONES
static void nbb_bwd(const dyvNeBase* pl, dyBatch* restrict W, nbbTmp* restrict T, int j) {
  const double ca = pl->m->cos_alpha[j], sa = pl->m->sin_alpha[j];
#define NBB_BWD_(k, b_) for (int b = 0; b < B; b++) bwd_lane(W, T, j, b, k, ca, sa)
  NBB_BY_TWIST(pl->m->twist[j], NBB_BWD_)
#undef NBB_BWD_
  const int fl = pl->flags[j];
  if (fl & DYV_NB_PX) {
    const double p0 = pl->pc[3*j];
    for (int b = 0; b < B; b++) { T->nn[1][b] -= p0*T->rf[2][b]; T->nn[2][b] += p0*T->rf[1][b]; }
  }
  if (fl & DYV_NB_PY)
    for (int b = 0; b < B; b++) {
      const double p1 = W->p[j][0][b];
      T->nn[0][b] += p1*T->rf[2][b]; T->nn[2][b] -= p1*T->rf[0][b];
    }
  if (fl & DYV_NB_PZ)
    for (int b = 0; b < B; b++) {
      const double p2 = W->p[j][1][b];
      T->nn[0][b] -= p2*T->rf[1][b]; T->nn[1][b] += p2*T->rf[0][b];
    }
}

/* one lane of joint 2's step below a revolute joint 1 (ne_base.c
 * nb_joint1, class k, pxy: p_2 has x or y, constants at every call): only
 * the z moment is passed on, nn_z = N_z + (R nn)_z (+ p0 (R f)_y - p1 (R f)_x) */
NBB_INL void joint1_lane(const dyvNeBase* pl, const dyBatch* restrict W, nbbTmp* restrict T,
                         int b, int k, int pxy) {
  const double ct = W->ct[1][b], st = W->st[1][b];
  const double ca = pl->m->cos_alpha[1], sa = pl->m->sin_alpha[1];
  double nz = W->N[0][2][b] + rot_n3_z((nbbV3){T->nn[0][b], T->nn[1][b], T->nn[2][b]}, ct, st, k, ca, sa);
  if (pxy) {
    const nbbV3 rf = rot_n3((nbbV3){T->f[0][b], T->f[1][b], T->f[2][b]}, ct, st, k, ca, sa);
    nz += pl->pc[3]*rf.y - W->p[1][0][b]*rf.x;
  }
  T->nn[2][b] = nz;
}

/* the backward pass: tau of joints n-1 .. 1 (or 2), each passing its
 * wrench down (nbb_bwd); below a revolute joint 1, joint 2 passes only the
 * z moment (joint1_lane); then tau of joint 1 */
NBB_INL void nbb_backward(const dyvNeBase* pl, const double* par, dyBatch* restrict W,
                          nbbTmp* restrict T) {
  const int n = pl->n, rev0 = pl->m->jnt_type[0] == DY_REVOLUTE, jb = rev0 ? 1 : 0;
  for (int b = 0; b < B; b++) {
    T->f[0][b] = W->F[n-1][0][b]; T->f[1][b] = W->F[n-1][1][b]; T->f[2][b] = W->F[n-1][2][b];
    T->nn[0][b] = W->N[n-1][0][b]; T->nn[1][b] = W->N[n-1][1][b]; T->nn[2][b] = W->N[n-1][2][b];
  }
  for (int j = n - 1; j > jb; j--) {
    nbb_tau(pl, par, W, T, j);
    nbb_bwd(pl, W, T, j);
  }
  if (rev0 && n > 1) {
    nbb_tau(pl, par, W, T, 1);
    const int pxy = (pl->flags[1] & (DYV_NB_PX | DYV_NB_PY)) != 0;
#define NBB_J1_(k, b_) \
    if (pxy) for (int b = 0; b < B; b++) joint1_lane(pl, W, T, b, k, 1); \
    else for (int b = 0; b < B; b++) joint1_lane(pl, W, T, b, k, 0)
    NBB_BY_TWIST(pl->m->twist[1], NBB_J1_)
#undef NBB_J1_
  }
  nbb_tau(pl, par, W, T, 0);
}

/* the base-parameter Newton-Euler of the chunk in W (q, qd, qdd loaded)
 * into W->tau; lanes nb.. are padding. The per-joint stages are built per
 * vector width (DY_CLONES) and called once per joint and chunk: inlining
 * every twist class and pattern into one function made a body that the
 * compilers take minutes to build with the sanitizers. */
DY_CLONES
static void nbb_chunk(const dyvNeBase* pl, const double* par, dyBatch* restrict W, int nb) {
  nbbTmp T;
  nbb_frames(pl, W, nb);
  nbb_forward(pl, par, W, &T);
  nbb_backward(pl, par, W, &T);
}

void dyv_nebase_rnea_batch(const dyvNeBase* plan, dyBatch* w, const double* par, int K,
                           const double* q, const double* qd, const double* qdd, double* tau) {
  const int n = plan->n;
  if (n <= 0) return;
  for (int k0 = 0; k0 < K; k0 += B) {
    const int nb = K - k0 < B ? K - k0 : B;
    dy_batch_load(plan->m, w, nb, q + k0, qd ? qd + k0 : NULL, qdd ? qdd + k0 : NULL, K);
    nbb_chunk(plan, par, w, nb);
    for (int b = 0; b < nb && plan->m->nmot; b++) {   /* the coupled motors, lane by lane */
      double qd1[DY_MAXJ], qdd1[DY_MAXJ], t1[DY_MAXJ] = {0};
      for (int j = 0; j < n; j++) { qd1[j] = w->qd[j][b]; qdd1[j] = w->qdd[j][b]; }
      dy_motor_tau(plan->m, par, qd1, qdd1, t1);
      for (int j = 0; j < n; j++) w->tau[j][b] += t1[j];
    }
    for (int j = 0; j < n; j++) {
      double* t = tau + (size_t)j * (size_t)K + (size_t)k0;
      if (nb == B)   /* a fixed-size copy: vector moves */
        memcpy(t, w->tau[j], sizeof w->tau[j]);
      else
        for (int b = 0; b < nb; b++) t[b] = w->tau[j][b];
    }
  }
}
