/* SPDX-License-Identifier: MIT */
/* dynid tests: scrambled random URDFs of a known robot (test_urdf,
 * test_modelio). A modified-DH chain is written as a URDF whose link frames
 * are scrambled: URDF link j = DH frame j times a random rigid transform S_j
 * (for a revolute joint S_j keeps the origin on the axis, as URDF requires;
 * for a prismatic one it is arbitrary). Joint origins, axes and inertial
 * frames are rewritten accordingly, axes are negated at random (then q_urdf
 * = -q_dh), fixed massive links inserted between some joints (merged into the
 * link before), a fixed world -> base pose (random rotation: a tilted base,
 * and offset), a massive tool and a massless tool0 after the last link, a
 * massive camera on a middle link and ground masses are added, and the
 * elements are written in scrambled order. The expected model is the DH
 * model with the tool and camera masses added to their links here,
 * independently of the reader (own transforms, own inertia shifts). */
#ifndef DYNID_URDFGEN_H
#define DYNID_URDFGEN_H
#include "testmodels.h"
#include "core/io.h"
#include <string.h>

typedef struct { double R[9], p[3]; } pose_t;

static pose_t pmul(pose_t a, pose_t b) {
  pose_t c;
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++)
      c.R[3*i+j] = a.R[3*i]*b.R[j] + a.R[3*i+1]*b.R[3+j] + a.R[3*i+2]*b.R[6+j];
    c.p[i] = a.p[i] + a.R[3*i]*b.p[0] + a.R[3*i+1]*b.p[1] + a.R[3*i+2]*b.p[2];
  }
  return c;
}
static pose_t pinv(pose_t a) {
  pose_t c;
  for (int i = 0; i < 3; i++) for (int j = 0; j < 3; j++) c.R[3*i+j] = a.R[3*j+i];
  for (int i = 0; i < 3; i++) c.p[i] = -(c.R[3*i]*a.p[0] + c.R[3*i+1]*a.p[1] + c.R[3*i+2]*a.p[2]);
  return c;
}
static pose_t peye(void) { pose_t c; memset(&c, 0, sizeof c); c.R[0] = c.R[4] = c.R[8] = 1; return c; }
static pose_t prand(double s) {
  pose_t c;
  th_random_rot(c.R);
  for (int k = 0; k < 3; k++) c.p[k] = th_uniform(-s, s);
  return c;
}
/* modified DH: Rx(alpha) Tx(a) Rz(theta) Tz(d), written out here */
static pose_t dh_pose(double alpha, double a, double theta, double d) {
  double ca = cos(alpha), sa = sin(alpha), ct = cos(theta), st = sin(theta);
  pose_t c = {{ct, -st, 0, ca*st, ca*ct, -sa, sa*st, sa*ct, ca}, {a, -sa*d, ca*d}};
  return c;
}
/* roll, pitch, yaw with R = Rz(y) Ry(p) Rx(r) */
static void rpy_of(const double R[9], double rpy[3]) {
  rpy[0] = atan2(R[7], R[8]);
  rpy[1] = atan2(-R[6], sqrt(R[0]*R[0] + R[3]*R[3]));
  rpy[2] = atan2(R[3], R[0]);
}
static void fpose(FILE* f, pose_t T) {
  double rpy[3];
  rpy_of(T.R, rpy);
  fprintf(f, "<origin xyz=\"%.17g %.17g %.17g\" rpy=\"%.17g %.17g %.17g\"/>", T.p[0], T.p[1], T.p[2],
          rpy[0], rpy[1], rpy[2]);
}
/* I' = R I R^T on six entries */
static void rot6(double out[6], const double R[9], const double I6[6]) {
  double I[9] = {I6[0], I6[1], I6[2], I6[1], I6[3], I6[4], I6[2], I6[4], I6[5]}, T[9], O[9];
  for (int i = 0; i < 3; i++) for (int j = 0; j < 3; j++)
    T[3*i+j] = R[3*i]*I[j] + R[3*i+1]*I[3+j] + R[3*i+2]*I[6+j];
  for (int i = 0; i < 3; i++) for (int j = 0; j < 3; j++)
    O[3*i+j] = T[3*i]*R[3*j] + T[3*i+1]*R[3*j+1] + T[3*i+2]*R[3*j+2];
  out[0] = O[0]; out[1] = O[1]; out[2] = O[2]; out[3] = O[4]; out[4] = O[5]; out[5] = O[8];
}
/* a body (mass, com c, inertia Ic about com) given in frame A, written as the
 * <inertial> of a URDF link whose frame is S in A, with a random inertial
 * frame orientation Q */
static void write_inertial(FILE* f, double mass, const double cA[3], const double IcA[6], pose_t S) {
  pose_t Si = pinv(S), Q = prand(0), Qt = pinv(Q);
  double cL[3], IL[6], Iq[6];
  for (int i = 0; i < 3; i++) cL[i] = Si.p[i] + Si.R[3*i]*cA[0] + Si.R[3*i+1]*cA[1] + Si.R[3*i+2]*cA[2];
  rot6(IL, Si.R, IcA);     /* about com, link-frame axes */
  rot6(Iq, Qt.R, IL);      /* inertial-frame axes */
  Q.p[0] = cL[0]; Q.p[1] = cL[1]; Q.p[2] = cL[2];
  fprintf(f, "    <inertial>");
  fpose(f, Q);
  fprintf(f, "<mass value=\"%.17g\"/><inertia ixx=\"%.17g\" ixy=\"%.17g\" ixz=\"%.17g\" iyy=\"%.17g\" "
          "iyz=\"%.17g\" izz=\"%.17g\"/></inertial>\n", mass, Iq[0], Iq[1], Iq[2], Iq[3], Iq[4], Iq[5]);
}
/* a random rigid body: mass, com, inertia about com */
static void random_body(double* mass, double c[3], double Ic[6]) {
  double p10[10];
  th_random_link(p10);
  dy_linkpar_to_com(p10, mass, c, Ic);
}
static void add_body(double par10[10], double mass, const double c[3], const double Ic[6], pose_t T) {
  /* body given in frame B, B at pose T in frame j: add its parameters about O_j */
  double cj[3], Ij[6], p10[10];
  for (int i = 0; i < 3; i++) cj[i] = T.p[i] + T.R[3*i]*c[0] + T.R[3*i+1]*c[1] + T.R[3*i+2]*c[2];
  rot6(Ij, T.R, Ic);
  dy_linkpar_from_com(p10, mass, cj, Ij);
  for (int k = 0; k < 10; k++) par10[k] += p10[k];
}


/* what th_write_urdf wrote */
typedef struct {
  dyModel* E;                 /* the expected model (free with dy_free_model) */
  dyLoadOpt opt;              /* the --base / --tip of the variant */
  double sgn[DY_MAXJ];        /* URDF axis sign: q_urdf = sgn q_dh */
  int cont[DY_MAXJ];          /* 1: written as continuous (no position limits) */
  double lo[DY_MAXJ], hi[DY_MAXJ], vel[DY_MAXJ], eff[DY_MAXJ];   /* limits written */
  double madd;                /* mass added to the moving links (tool, camera, fixed links) */
  int nmid;                   /* massive fixed links inserted between joints */
} th_urdf;

/* Write the scrambled URDF of dh (n = dh->n joints) to path. variant 0: the
 * expected model is the chain from the root 'world' to tool0; 1: from
 * --base base; 2: to --tip tool (g->opt holds the option). 0, or -1 if the
 * file cannot be written. */
static int th_write_urdf(const char* path, int trial, const dyModel* dh, int variant, th_urdf* g) {
  int n = dh->n;
  memset(g, 0, sizeof *g);
  dyModel* E = dy_copy_model(dh);
  pose_t S[DY_MAXJ + 1], P = prand(1.0), Ttool = prand(0.3), Ttool0 = prand(0.2);
  double sgn[DY_MAXJ], lo[DY_MAXJ], hi[DY_MAXJ], vel[DY_MAXJ], eff[DY_MAXJ];
  int cont[DY_MAXJ];
  for (int j = 0; j <= n; j++) {
    S[j] = prand(0.4);
    if (j >= 1 && dh->jnt_type[j-1] == DY_REVOLUTE) { S[j].p[0] = S[j].p[1] = 0; }
  }
  for (int j = 0; j < n; j++) {
    sgn[j] = th_uniform(0, 1) < 0.4 ? -1 : 1;
    cont[j] = dh->jnt_type[j] == DY_REVOLUTE && th_uniform(0, 1) < 0.3;
    lo[j] = th_uniform(-3, -0.1); hi[j] = th_uniform(0.1, 3);
    vel[j] = th_uniform(1, 5); eff[j] = th_uniform(10, 300);
  }
  int cam = n > 1 ? 1 + (int)th_uniform(0, n - 1) : 0;   /* link 1..n-1 */
  pose_t C = prand(0.2);
  double mt, ct[3], It[6], mc, cc[3], Ic[6], mg, cg[3], Ig[6];
  random_body(&mt, ct, It);
  random_body(&mc, cc, Ic);
  random_body(&mg, cg, Ig);
  /* a fixed intermediate link (flange, adapter) before some joints: joint j
   * then hangs from mid_j, whose mass belongs to link j-1 (ground for j=1) */
  int mid[DY_MAXJ];
  pose_t Mp[DY_MAXJ];
  double mm[DY_MAXJ], mcom[DY_MAXJ][3], mI[DY_MAXJ][6];
  for (int j = 0; j < n; j++) {
    mid[j] = th_uniform(0, 1) < 0.3;
    Mp[j] = prand(0.3);
    random_body(mm + j, mcom[j], mI[j]);
  }

  FILE* f = fopen(path, "w");
  if (!f) { dy_free_model(E); return -1; }
  fprintf(f, "<?xml version=\"1.0\"?>\n<!-- written by test_urdf -->\n<robot name=\"rt%d\">\n", trial);
  /* joints first, last to first (order must not matter) */
  for (int j = n; j >= 1; j--) {
    const char* ty = dh->jnt_type[j-1] == DY_PRISMATIC ? "prismatic" : cont[j-1] ? "continuous" : "revolute";
    char parent[16], prev[16];
    if (j == 1) snprintf(prev, sizeof prev, "base"); else snprintf(prev, sizeof prev, "link%d", j - 1);
    pose_t T0 = dh_pose(dh->dh_alpha[j-1], dh->dh_a[j-1], dh->dh_theta[j-1], dh->dh_d[j-1]);
    pose_t O = pmul(pmul(pinv(S[j-1]), T0), S[j]);
    if (mid[j-1]) {
      snprintf(parent, sizeof parent, "mid%d", j);
      fprintf(f, "  <joint name=\"mid%d_joint\" type=\"fixed\">", j);
      fpose(f, Mp[j-1]);
      fprintf(f, "<parent link=\"%s\"/><child link=\"mid%d\"/></joint>\n  <link name=\"mid%d\">\n", prev, j, j);
      write_inertial(f, mm[j-1], mcom[j-1], mI[j-1], peye());
      fprintf(f, "  </link>\n");
      O = pmul(pinv(Mp[j-1]), O);
    } else {
      snprintf(parent, sizeof parent, "%s", prev);
    }
    double ax[3] = {sgn[j-1]*S[j].R[6], sgn[j-1]*S[j].R[7], sgn[j-1]*S[j].R[8]};  /* R_S^T e_z */
    fprintf(f, "  <joint name=\"j%d\" type=\"%s\">\n    ", j, ty);
    fpose(f, O);
    fprintf(f, "\n    <parent link=\"%s\"/>\n    <child link=\"link%d\"/>\n", parent, j);
    fprintf(f, "    <axis xyz=\"%.17g %.17g %.17g\"/>\n", ax[0], ax[1], ax[2]);
    fprintf(f, "    <limit lower=\"%.17g\" upper=\"%.17g\" velocity=\"%.17g\" effort=\"%.17g\"/>\n  </joint>\n",
            lo[j-1], hi[j-1], vel[j-1], eff[j-1]);
  }
  fprintf(f, "  <joint name=\"tool_joint\" type=\"fixed\">");
  fpose(f, pmul(pinv(S[n]), Ttool));
  fprintf(f, "<parent link=\"link%d\"/><child link=\"tool\"/></joint>\n", n);
  fprintf(f, "  <joint name=\"tool0_joint\" type=\"fixed\">");
  fpose(f, Ttool0);
  fprintf(f, "<parent link=\"tool\"/><child link=\"tool0\"/></joint>\n");
  if (cam) {
    fprintf(f, "  <joint name=\"camera_joint\" type=\"fixed\">");
    fpose(f, C);
    fprintf(f, "<parent link=\"link%d\"/><child link=\"camera\"/></joint>\n", cam);
  }
  fprintf(f, "  <joint name=\"base_offset\" type=\"fixed\">");
  fpose(f, P);
  fprintf(f, "<parent link=\"world\"/><child link=\"base\"/></joint>\n");
  fprintf(f, "  <joint name=\"pedestal_joint\" type=\"fixed\">");
  fpose(f, prand(0.5));
  fprintf(f, "<parent link=\"world\"/><child link=\"pedestal\"/></joint>\n");
  /* links, tip to base */
  fprintf(f, "  <link name=\"tool0\"/>\n  <link name=\"tool\">\n");
  write_inertial(f, mt, ct, It, peye());
  fprintf(f, "  </link>\n");
  if (cam) {
    fprintf(f, "  <link name=\"camera\">\n");
    write_inertial(f, mc, cc, Ic, peye());
    fprintf(f, "  </link>\n");
  }
  for (int j = n; j >= 1; j--) {
    double mass, c[3], I6[6];
    dy_linkpar_to_com(dh->par + DY_NPAR_LINK*(j-1), &mass, c, I6);
    fprintf(f, "  <link name=\"link%d\">\n", j);
    write_inertial(f, mass, c, I6, S[j]);
    fprintf(f, "  </link>\n");
  }
  fprintf(f, "  <link name=\"base\">\n");
  write_inertial(f, mg, cg, Ig, S[0]);
  fprintf(f, "  </link>\n  <link name=\"pedestal\">\n");
  write_inertial(f, mg, cg, Ig, peye());
  fprintf(f, "  </link>\n  <link name=\"world\"/>\n</robot>\n");
  fclose(f);

  /* expected model: tool on link n, camera on link cam, frames and gravity */
  add_body(E->par + DY_NPAR_LINK*(n-1), mt, ct, It, Ttool);
  if (cam) add_body(E->par + DY_NPAR_LINK*(cam-1), mc, cc, Ic, pmul(S[cam], C));
  double mmid = 0;
  for (int j = 2; j <= n; j++)
    if (mid[j-1]) { add_body(E->par + DY_NPAR_LINK*(j-2), mm[j-1], mcom[j-1], mI[j-1], pmul(S[j-1], Mp[j-1])); mmid += mm[j-1]; g->nmid++; }
  dyLoadOpt opt;
  memset(&opt, 0, sizeof opt);
  pose_t B = pmul(P, pinv(S[0])), tipT = pmul(Ttool, Ttool0);  /* frame 0 in world; tip in frame n */
  double g_world[3] = {0, 0, -9.81};
  for (int i = 0; i < 3; i++)
    E->gravity[i] = B.R[i]*g_world[0] + B.R[3+i]*g_world[1] + B.R[6+i]*g_world[2];
  if (variant == 1) { opt.base = "base"; B = pinv(S[0]); }
  if (variant == 2) { opt.tip = "tool"; tipT = Ttool; }
  memcpy(E->base_T, B.R, 9*sizeof(double)); memcpy(E->base_T + 9, B.p, 3*sizeof(double));
  memcpy(E->tip_T, tipT.R, 9*sizeof(double)); memcpy(E->tip_T + 9, tipT.p, 3*sizeof(double));

  g->E = E;
  g->opt = opt;
  for (int j = 0; j < n; j++) {
    g->sgn[j] = sgn[j]; g->cont[j] = cont[j];
    g->lo[j] = lo[j]; g->hi[j] = hi[j]; g->vel[j] = vel[j]; g->eff[j] = eff[j];
  }
  g->madd = mt + (cam ? mc : 0) + mmid;
  return 0;
}
#endif
