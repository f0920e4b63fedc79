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

/* R Jsym R^T for a symmetric J given by six entries; result as six entries */
static inline void dyu_rotSym6(double out[6], const double R[9], const double s[6]) {
  double J[9], T[9], O[9];
  dyu_sym6ToMat(J, s);
  dyu_mulMat3(T, R, J);
  dyu_mulMatMatT3(O, T, R);
  dyu_matToSym6(out, O);
}

#endif
