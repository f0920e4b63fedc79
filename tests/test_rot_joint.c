/* SPDX-License-Identifier: MIT */
/* dynid tests: the rotation of a symmetric 3x3 by one joint's
 * R = Rx(alpha) Rz(theta) (core/mathu.h dyu_rotJointSym6, used by
 * dy_fd_aba):
 *  - equals R X R^T with R as a matrix (dyu_rotSym6, dy_jointframe's R) to
 *    1e-14 of |X|, for the special twists (0, +-pi/2, pi, also as libm's
 *    cos and sin of them) and general ones, any theta;
 *  - equals, bit for bit, verify's counted twin dyv_rot_sym (the
 *    uncounted build, no known zeros): the same equations, [LinFang99]
 *    eqs. 41-54. */
#include "testhelp.h"
#include "core/mathu.h"
#include "core/model.h"
#include "verify/kernels.h"
#include <string.h>

int main(void) {
  const double pi = 3.14159265358979323846;
  const double alphas[] = {0, pi / 2, -pi / 2, pi, -pi, 0.3, -2.1, 1.0e-13, pi / 2 + 1e-9, 2.5};
  int nalpha = (int)(sizeof alphas / sizeof alphas[0]);
  double worst = 0;
  int same = 1;
  for (int k = 0; k < TH_SWEEP(4000); k++) {
    const double al = alphas[k % nalpha], th = th_uniform(-4, 4);
    double X[6];
    for (int i = 0; i < 6; i++) X[i] = th_uniform(-2, 2);
    const double ct = cos(th), st = sin(th), ca = cos(al), sa = sin(al);
    /* R = Rx(alpha) Rz(theta) as dy_jointframe builds it */
    const double R[9] = {ct, -st, 0, ca * st, ca * ct, -sa, sa * st, sa * ct, ca};
    double o[6], ref[6], vo[6];
    dyu_rotJointSym6(o, X, ct, st, ca, sa);
    dyu_rotSym6(ref, R, X);
    double scale = 0;
    for (int i = 0; i < 6; i++) scale = fmax(scale, fabs(X[i]));
    for (int i = 0; i < 6; i++) worst = fmax(worst, fabs(o[i] - ref[i]) / scale);
    /* verify's twin, with the model's class and its exact cos, sin for the
     * special twists; 1e-13 is twist 0 to the class (1e-12), not to the
     * 1e-15 on sin alpha here */
    if (al == 1.0e-13) continue;
    double vca, vsa;
    const dyTwist cls = dyv_angle_cs(al, &vca, &vsa);
    dyv_rot_sym(NULL, vo, X, ct, st, cls, vca, vsa, 0);
    if (memcmp(o, vo, sizeof o)) same = 0;
  }
  CHECK(worst <= 1e-14, "dyu_rotJointSym6 vs R X R^T with R as a matrix: %.3g of |X|", worst);
  CHECK(same, "dyu_rotJointSym6 differs from verify's dyv_rot_sym");
  return test_report();
}
