/* SPDX-License-Identifier: MIT */
/* dynid pure math: small fixed-shape helpers on 3-vectors and 3x3
 * row-major matrices. Output first, inputs after (MuJoCo's mju_ style).
 * All inline: they sit inside the per-sample loops. */
#ifndef DYNID_MATHU_H
#define DYNID_MATHU_H

#include <math.h>
#include <string.h>

/* res = a x b (res may not alias a or b) */
static inline void dyu_cross(double res[3], const double a[3], const double b[3]) {
  res[0] = a[1]*b[2] - a[2]*b[1];
  res[1] = a[2]*b[0] - a[0]*b[2];
  res[2] = a[0]*b[1] - a[1]*b[0];
}
/* res += a x b */
static inline void dyu_addCross(double res[3], const double a[3], const double b[3]) {
  res[0] += a[1]*b[2] - a[2]*b[1];
  res[1] += a[2]*b[0] - a[0]*b[2];
  res[2] += a[0]*b[1] - a[1]*b[0];
}
/* a . b */
static inline double dyu_dot3(const double a[3], const double b[3]) {
  return a[0]*b[0] + a[1]*b[1] + a[2]*b[2];
}
/* res = M v */
static inline void dyu_mulMatVec3(double res[3], const double M[9], const double v[3]) {
  res[0] = M[0]*v[0] + M[1]*v[1] + M[2]*v[2];
  res[1] = M[3]*v[0] + M[4]*v[1] + M[5]*v[2];
  res[2] = M[6]*v[0] + M[7]*v[1] + M[8]*v[2];
}
/* res = M^T v */
static inline void dyu_mulMatTVec3(double res[3], const double M[9], const double v[3]) {
  res[0] = M[0]*v[0] + M[3]*v[1] + M[6]*v[2];
  res[1] = M[1]*v[0] + M[4]*v[1] + M[7]*v[2];
  res[2] = M[2]*v[0] + M[5]*v[1] + M[8]*v[2];
}
/* res = A B (3x3; res may not alias) */
static inline void dyu_mulMat3(double res[9], const double A[9], const double B[9]) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      res[3*i+j] = A[3*i]*B[j] + A[3*i+1]*B[3+j] + A[3*i+2]*B[6+j];
}
/* res = A^T B */
static inline void dyu_mulMatTMat3(double res[9], const double A[9], const double B[9]) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      res[3*i+j] = A[i]*B[j] + A[3+i]*B[3+j] + A[6+i]*B[6+j];
}
/* res = A B^T */
static inline void dyu_mulMatMatT3(double res[9], const double A[9], const double B[9]) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      res[3*i+j] = A[3*i]*B[3*j] + A[3*i+1]*B[3*j+1] + A[3*i+2]*B[3*j+2];
}
/* symmetric 3x3 from the six entries xx xy xz yy yz zz */
static inline void dyu_sym6ToMat(double M[9], const double s[6]) {
  M[0] = s[0]; M[1] = s[1]; M[2] = s[2];
  M[3] = s[1]; M[4] = s[3]; M[5] = s[4];
  M[6] = s[2]; M[7] = s[4]; M[8] = s[5];
}
/* the six entries xx xy xz yy yz zz of a (symmetric) 3x3 */
static inline void dyu_matToSym6(double s[6], const double M[9]) {
  s[0] = M[0]; s[1] = 0.5*(M[1]+M[3]); s[2] = 0.5*(M[2]+M[6]);
  s[3] = M[4]; s[4] = 0.5*(M[5]+M[7]); s[5] = M[8];
}
/* res = J v with J symmetric given by its six entries */
static inline void dyu_mulSym6Vec(double res[3], const double s[6], const double v[3]) {
  res[0] = s[0]*v[0] + s[1]*v[1] + s[2]*v[2];
  res[1] = s[1]*v[0] + s[3]*v[1] + s[4]*v[2];
  res[2] = s[2]*v[0] + s[4]*v[1] + s[5]*v[2];
}
/* identity 3x3 */
static inline void dyu_eye3(double M[9]) {
  M[0] = M[4] = M[8] = 1; M[1] = M[2] = M[3] = M[5] = M[6] = M[7] = 0;
}
/* rotation about x by a [rad] */
static inline void dyu_rotx(double M[9], double a) {
  double c = cos(a), s = sin(a);
  M[0] = 1; M[1] = 0; M[2] = 0; M[3] = 0; M[4] = c; M[5] = -s; M[6] = 0; M[7] = s; M[8] = c;
}
/* rotation about z by a [rad] */
static inline void dyu_rotz(double M[9], double a) {
  double c = cos(a), s = sin(a);
  M[0] = c; M[1] = -s; M[2] = 0; M[3] = s; M[4] = c; M[5] = 0; M[6] = 0; M[7] = 0; M[8] = 1;
}
/* pose composition: (R,p) = (R1,p1)(R2,p2), i.e. R = R1 R2, p = p1 + R1 p2 */
static inline void dyu_composePose(double R[9], double p[3], const double R1[9],
                                   const double p1[3], const double R2[9], const double p2[3]) {
  double t[3];
  dyu_mulMatVec3(t, R1, p2);
  dyu_mulMat3(R, R1, R2);
  p[0] = p1[0] + t[0]; p[1] = p1[1] + t[1]; p[2] = p1[2] + t[2];
}
/* sign with sign(0) = 0 */
static inline double dyu_sign(double x) { return (x > 0) - (x < 0); }

/* R Jsym R^T for any rotation R given as a matrix and a symmetric J given
 * by six entries; result as six entries (frames of a URDF, a centre-of-mass
 * frame, the composite inertias of dy_crba and dy_crba_batch) */
static inline void dyu_rotSym6(double out[6], const double R[9], const double s[6]) {
  double J[9], T[9], O[9];
  dyu_sym6ToMat(J, s);
  dyu_mulMat3(T, R, J);
  dyu_mulMatMatT3(O, T, R);
  dyu_matToSym6(out, O);
}

/* o = R X R^T for one joint's rotation R = Rx(alpha) Rz(theta), factored,
 * and symmetric X (six entries xx xy xz yy yz zz, o likewise; o may not
 * alias X), by [LinFang99] eqs. (41)-(54): Rz with the double angle, then
 * Rx, a signed permutation for alpha within 1e-15 (of its sine or cosine)
 * of 0, pi or +-pi/2. 9 M 7 A, 18 M 14 A for a general twist (dyu_rotSym6,
 * with R as a matrix: 54 M 36 A). ct, st: cos, sin theta; ca, sa: cos, sin
 * alpha.
 * Forward dynamics' articulated inertias use it (fd.c); its twin with the
 * operation counts and known zeros is verify/kernels.h dyv_rot_sym. */
static inline void dyu_rotJointSym6(double o[6], const double X[6], double ct, double st, double ca, double sa) {
  const double X11 = X[0], X12 = X[1], X13 = X[2], X22 = X[3], X23 = X[4], X33 = X[5];
  /* Y = Rz X Rz^T: Y11 = A2 + X22, Y12 = A4, Y22 = A3, Y13 = A8, Y23 = A5, Y33 = X33 */
  const double A1 = ct*(X11 - X22) - 2*st*X12, A2 = ct*A1, A3 = X11 - A2, A4 = st*A1 + X12;
  const double A5 = st*X13 + ct*X23, A8 = ct*X13 - st*X23;
  o[0] = A2 + X22;
  if (fabs(sa) < 1e-15) {                      /* alpha = 0 or pi */
    const double sg = ca > 0 ? 1 : -1;
    o[1] = sg*A4; o[2] = sg*A8; o[3] = A3; o[4] = A5; o[5] = X33;
  } else if (fabs(ca) < 1e-15) {               /* alpha = +-pi/2: rows and columns 1, 2 swap */
    const double sg = sa > 0 ? 1 : -1;
    o[1] = -sg*A8; o[2] = sg*A4; o[3] = X33; o[4] = -A5; o[5] = A3;
  } else {
    const double A6 = (A3 - X33)*ca - 2*sa*A5, A7 = ca*A6;
    o[1] = ca*A4 - sa*A8; o[2] = sa*A4 + ca*A8;
    o[3] = A7 + X33; o[4] = A5 + sa*A6; o[5] = A3 - A7;
  }
}

#endif
