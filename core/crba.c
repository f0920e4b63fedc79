/* SPDX-License-Identifier: MIT */
/* dynid core: composite-rigid-body inertia matrix ([FeatherstoneOrin00], section 3.2)
 * in link frames. The composite body of link j (links j..n) is held as
 * (Jc about O_j, first moment MSc, mass Mc) in frame j. */
#include "core/dynamics.h"
#include "core/mathu.h"
#include "core/transmission.h"
#include <string.h>

void dy_crba(const dyModel* m, dyData* d, const double* par, const double* q,
             double* H) {
  const int n = m->n;
  double* c = d->comp;   /* per link: J (6), MS (3), M (1) */

  dy_frames(m, d, q);
  memcpy(c, par, sizeof(double) * DY_NPAR_LINK * (size_t)n);

  /* backward: add composite j into j-1:
   *   M' += M;  MS' += R MS + M p;
   *   J' += R J R^T - M [p]^2 - [p][R MS] - [R MS][p]               */
  for (int j = n - 1; j > 0; j--) {
    const double *R = d->R + 9*j, *p = d->p + 3*j, *cj = c + 10*j;
    double *cp = c + 10*(j-1);
    double s[3], Jr[6];
    dyu_mulMatVec3(s, R, cj + 6);
    dyu_rotSym6(Jr, R, cj);
    double M = cj[9], pp = dyu_dot3(p, p), ps = dyu_dot3(p, s);
    cp[0] += Jr[0] + M*(pp - p[0]*p[0]) + 2*ps - 2*p[0]*s[0];
    cp[1] += Jr[1] - M*p[0]*p[1] - p[0]*s[1] - s[0]*p[1];
    cp[2] += Jr[2] - M*p[0]*p[2] - p[0]*s[2] - s[0]*p[2];
    cp[3] += Jr[3] + M*(pp - p[1]*p[1]) + 2*ps - 2*p[1]*s[1];
    cp[4] += Jr[4] - M*p[1]*p[2] - p[1]*s[2] - s[1]*p[2];
    cp[5] += Jr[5] + M*(pp - p[2]*p[2]) + 2*ps - 2*p[2]*s[2];
    cp[6] += s[0] + M*p[0];
    cp[7] += s[1] + M*p[1];
    cp[8] += s[2] + M*p[2];
    cp[9] += M;
  }

  /* columns: the wrench of composite j under unit motion of joint j,
   * carried down to each joint i <= j and projected on its axis */
  const double* pj = par + DY_NPAR_LINK*n;
  for (int j = 0; j < n; j++) {
    const double* cj = c + 10*j;
    double F[3], N[3];
    if (m->jnt_type[j] == DY_REVOLUTE) {
      /* F = z x MS, N = J z */
      F[0] = -cj[7]; F[1] = cj[6]; F[2] = 0;
      N[0] = cj[2]; N[1] = cj[4]; N[2] = cj[5];
    } else {
      /* F = M z, N = MS x z */
      F[0] = 0; F[1] = 0; F[2] = cj[9];
      N[0] = cj[7]; N[1] = -cj[6]; N[2] = 0;
    }
    H[j*n + j] = (m->jnt_type[j] == DY_REVOLUTE ? N[2] : F[2]) + pj[DY_NPAR_JNT*j + DY_IA];
    for (int i = j; i > 0; i--) {
      const double *R = d->R + 9*i, *p = d->p + 3*i;
      double rf[3], rn[3];
      dyu_mulMatVec3(rf, R, F);
      dyu_mulMatVec3(rn, R, N);
      dyu_addCross(rn, p, rf);
      memcpy(F, rf, sizeof F); memcpy(N, rn, sizeof N);
      double h = m->jnt_type[i-1] == DY_REVOLUTE ? N[2] : F[2];
      H[(i-1)*n + j] = h;
      H[j*n + (i-1)] = h;
    }
  }
  dy_motor_inertia(m, par, H);   /* the coupled motors' IAMk R_k^T R_k */
}
