/* SPDX-License-Identifier: MIT */
/* dynid core: the robot model and its per-call scratch.
 *
 * A serial chain of n revolute (R) or prismatic (P) joints in modified
 * Denavit-Hartenberg frames (Khalil-Kleinfinger / Craig):
 *     T(j-1 -> j) = Rx(alpha_j) Tx(a_j) Rz(theta_j) Tz(d_j)
 * a revolute joint adds q_j to theta_j, a prismatic one adds q_j to d_j.
 * Frame 0 is the fixed base; z_j is the axis of joint j.
 *
 * Parameters (README.md, Parameters). The full vector used by every
 * algorithm has DY_NPAR_LINK*n link parameters followed by DY_NPAR_JNT*n
 * joint parameters (14n in all); without friction the joint ones are zero:
 *     link j:  XX XY XZ YY YZ ZZ  inertia about O_j, frame-j axes  [kg m^2]
 *              MX MY MZ            first moment m_j c_j, frame j    [kg m]
 *              M                   mass                             [kg]
 *     joint j: IA FV FC FO         tau_j += IA qdd + FV qd + FC sign(qd) + FO
 *
 * The model is constant after loading (const dyModel* everywhere), apart
 * from its geometry-derived constants (cos, sin and class of each twist),
 * which dy_set_const fills once: every loader and maker calls it, and so
 * must anyone who edits the geometry afterwards. All per-call scratch lives
 * in dyData, one per thread (MuJoCo's model/data split). */
#ifndef DYNID_MODEL_H
#define DYNID_MODEL_H

#define DY_MAXJ 32          /* largest number of joints accepted */
#define DY_NPAR_LINK 10     /* standard parameters per link */
#define DY_NPAR_JNT 4       /* joint parameters per joint (IA FV FC FO) */
#define DY_NPL (DY_NPAR_LINK + DY_NPAR_JNT)  /* full parameters per joint: 14 */
#define DY_NPAR_MOT 3       /* parameters per coupled motor (IAM FVM FCM, transmission.h) */
/* the most entries a full vector can have: dy_npar = DY_NPL n + DY_NPAR_MOT nmot */
#define DY_MAXPAR ((DY_NPL + DY_NPAR_MOT) * DY_MAXJ)

/* offsets inside a link's ten parameters (the order is written here only) */
enum { DY_XX, DY_XY, DY_XZ, DY_YY, DY_YZ, DY_ZZ, DY_MX, DY_MY, DY_MZ, DY_M };
/* offsets inside a joint's four parameters */
enum { DY_IA, DY_FV, DY_FC, DY_FO };
/* offsets inside a coupled motor's three parameters (transmission.h) */
enum { DY_IAM, DY_FVM, DY_FCM };

typedef enum { DY_REVOLUTE = 0, DY_PRISMATIC = 1 } dyJointType;

/* Class of a twist angle alpha_j. The special angles make Rx(alpha_j) a
 * signed permutation, so the efficient algorithms specialise their code on
 * the class. Decided on the angle itself within 1e-12 rad (modulo 2 pi), no
 * trigonometry. The numbers are fixed: tables are indexed by them. */
typedef enum {
  DY_TWIST_GENERAL = 0,  /* any other angle */
  DY_TWIST_0 = 1,        /* alpha = 0 */
  DY_TWIST_PI2 = 2,      /* alpha = +pi/2 */
  DY_TWIST_MPI2 = 3,     /* alpha = -pi/2 */
  DY_TWIST_PI = 4        /* alpha = pi */
} dyTwist;

typedef struct dyModel_ {
  int n;                 /* number of moving joints (1..DY_MAXJ) */
  int has_friction;      /* 1 if the source gave joint parameters */
  int *jnt_type;         /* dyJointType of each joint (n) */
  double *dh_alpha;      /* alpha_j [rad] (n) */
  double *dh_a;          /* a_j [m] (n) */
  double *dh_theta;      /* theta_j at q = 0 [rad] (n) */
  double *dh_d;          /* d_j at q = 0 [m] (n) */
  double *par;           /* nominal full parameters, see above (dy_npar: 14n, then
                            3 per coupled motor; room for 17n) */
  int has_trans;         /* 1: trans holds a transmission (transmission.h) */
  double *trans;         /* R, motor velocity = R qd, row k = motor k, row-major;
                            all 0 when has_trans is 0 (n x n) */
  int nmot;              /* coupled motors (rows of R with more than one non-zero) */
  int mot_k[DY_MAXJ];    /* their 0-based motor numbers, ascending (nmot) */
  double *jnt_qmin;      /* position limits [rad|m], -inf/+inf: none (n) */
  double *jnt_qmax;      /* (n) */
  double *jnt_qdmax;     /* velocity limit [rad/s|m/s], +inf: none (n) */
  double *jnt_qddmax;    /* acceleration limit, +inf: none (n) */
  double *jnt_taumax;    /* effort limit [N m|N], +inf: none (n) */
  double *link_ell;      /* bounding ellipsoid of link j in frame j: centre cx,cy,cz
                            then semi-axes rx,ry,rz along frame j's axes [m];
                            all six 0: none known (6n) */
  char (*jnt_name)[64];  /* joint names from the source, "" if none (n) */
  double gravity[3];     /* gravity in frame 0 [m/s^2], default (0,0,-9.81) */
  double base_T[12];     /* source base frame -> frame 0: R (row-major 3x3) then p */
  double tip_T[12];      /* frame n -> tool/tip frame: R (row-major 3x3) then p */
  double load_fk_err;    /* largest FK difference source vs. converted model
                            over random configurations [m or rad]; 0 for mDH */
  char source[256];      /* the file the model was loaded from */
  char notes[2048];      /* what the loader changed or assumed, one line per
                            note ending in '\n' (e.g. a locked joint); every
                            file written from the model repeats them as '#'
                            lines; "" if none */
  /* constants derived from the geometry, filled by dy_set_const */
  double *cos_alpha;     /* cos(alpha_j) as libm gives it (n) */
  double *sin_alpha;     /* sin(alpha_j) (n) */
  dyTwist *twist;        /* class of alpha_j (n) */
} dyModel;

/* Per-call scratch of the core algorithms (and of ident's regressor), each
 * array named for what it holds. Frames, velocities, accelerations and
 * wrenches are per link j, in frame j unless stated. */
typedef struct dyData_ {
  int n;
  double *R;     /* R_{j-1,j}: frame j axes in frame j-1, row-major (9n) */
  double *p;     /* O_j in frame j-1 [m] (3n) */
  double *w;     /* angular velocity of link j [rad/s] (3n) */
  double *wd;    /* angular acceleration (3n) */
  double *vd;    /* linear acceleration of O_j incl. -gravity (3n) */
  double *f;     /* force on link j from link j-1 [N] (3n) */
  double *nm;    /* moment about O_j [N m] (3n) */
  double *comp;  /* dy_crba: composite body j..n, its J (6) MS (3) M (1) (10n) */
  double *H;     /* an inertia matrix: dy_fd_chol's, factored in place;
                    dyv_lin91_Hb's when its caller wants b alone (n*n) */
  double *bias;  /* dy_fd_chol: bias vector C qd + g + joint terms (n) */
  double *art;   /* dy_fd_aba: articulated inertia blocks A, B, M, 3x3 each (27n) */
  double *vel;   /* dy_fd_aba: spatial velocity (w; v) about O_j (6n) */
  double *acc;   /* dy_fd_aba: velocity-product acceleration c_j, then the
                    link's spatial acceleration (in place) (6n) */
  double *pA;    /* dy_fd_aba: articulated bias force (6n) */
  double *U;     /* dy_fd_aba: articulated inertia times the joint axis (6n) */
  double *D;     /* dy_fd_aba: axis^T U + armature (n) */
  double *u;     /* dy_fd_aba: tau - axis^T pA - joint terms (n) */
  double *axes;  /* dyi_regressor: joint axes 0..k (angular; linear) carried
                    into frame k (6n) */
} dyData;

/* Allocate a model for n joints, zeroed, gravity (0,0,-9.81), identity
 * base and tip, no limits. Returns NULL on failure. Free with dy_free_model. */
dyModel* dy_make_model(int n);
void dy_free_model(dyModel* m);

/* Deep copy of a model (NULL on failure). */
dyModel* dy_copy_model(const dyModel* m);

/* Fill the geometry-derived constants of m from its geometry:
 *   cos_alpha_j = cos(alpha_j), sin_alpha_j = sin(alpha_j),
 *   twist_j = dy_twist_class(alpha_j).
 * Called by every loader and by dy_make_model; call it after any change of
 * dh_alpha (and, by convention, of any geometry) before the next dynamics
 * call: the algorithms read these constants, never alpha itself. */
void dy_set_const(dyModel* m);

/* Class of an angle [rad] as for a twist (dyTwist), within 1e-12 rad. */
dyTwist dy_twist_class(double angle);

/* Allocate the scratch for m (one allocation). NULL on failure. */
dyData* dy_make_data(const dyModel* m);
void dy_free_data(dyData* d);

/* Number of entries of the full parameter vector: 14 n + 3 nmot (the coupled
 * motors' IAM FVM FCM last, transmission.h). */
int dy_npar(const dyModel* m);

/* Lengths a model may hold [m]: a model table with |a_j|, |d_j| or a base
 * or tip offset above DY_MAXLEN is refused (a unit error or a corrupt cell;
 * far beyond it a frame written as a URDF keeps no digit of a link's
 * size). A URDF's frames are derived (common normals, axis offsets), so a
 * URDF written from a table near the limit may hold a little more: its
 * loader refuses only beyond DY_MAXLEN_URDF. 0, or 1 with what = the first
 * value beyond ("joint 2: a = 3 m, d = -1e+30 m: a length beyond 1e+06 m"). */
#define DY_MAXLEN 1e6
#define DY_MAXLEN_URDF 1e9
/* and twists or joint offsets (alpha_j, theta_j) above DY_MAXANGLE [rad]
 * (degrees given as radians, or a corrupt cell) */
#define DY_MAXANGLE 1e3
int dy_length_bad(const dyModel* m, double limit, char* what, int whatsz);

/* Bounding ellipsoid of a link, e = (cx, cy, cz, rx, ry, rz) [m] in its
 * frame j (dyModel.link_ell): the points x with
 *   sum_k ((x_k - c_k) / r_k)^2 <= 1.
 * dy_ell_given: 1 unless all six are 0 (none known). dy_ell_bad: -1 if e is
 * none or valid (centre finite, semi-axes > 0 and finite, every |value| <=
 * DY_MAXLEN), else the index 0..5 of the first value that is not. */
int dy_ell_given(const double e[6]);
int dy_ell_bad(const double e[6]);

/* Name of full parameter k (0 <= k < dy_npar) into buf: "XX1", ..., "FO7",
 * then the coupled motors' "IAM6", "FVM6", "FCM6". */
void dy_parname(const dyModel* m, int k, char* buf, int bufsz);

/* The joint kind of full parameter k: DY_IA, DY_FV, DY_FC, DY_FO for a
 * joint's, DY_IA, DY_FV, DY_FC for a coupled motor's IAM, FVM, FCM (the
 * --friction subsets keep both alike), -1 for a link's. */
int dy_parkind(const dyModel* m, int k);
/* 1 if full parameter k can reach the torque of joint j (0-based): link
 * k's joints 1..k, joint j's itself, a coupled motor's the joints its row
 * of the transmission turns. */
int dy_par_reaches(const dyModel* m, int k, int j);

/* Index of a parameter name (case-insensitive) or -1. */
int dy_parindex(const dyModel* m, const char* name);

/* Standard parameters of one link from mass m [kg], centre of mass c in
 * frame j [m] and the inertia tensor Ic about the centre of mass, frame-j
 * axes, as ixx ixy ixz iyy iyz izz [kg m^2] (tensor entries, ixy = -int xy dm):
 *   J_O = Ic + m (|c|^2 1 - c c^T),  first moment = m c.                  */
void dy_linkpar_from_com(double par10[10], double mass, const double c[3],
                         const double Ic6[6]);

/* Inverse of dy_linkpar_from_com; mass <= 0 gives c = 0 and Ic = J_O. */
void dy_linkpar_to_com(const double par10[10], double* mass, double c[3],
                       double Ic6[6]);

/* Pseudo-inertia of a link's ten parameters (order above), 4x4 symmetric
 * (row- or column-major alike):
 *   PI = [ tr(J)/2 1 - J   h ]   J: inertia about O_j [kg m^2], h = (MX, MY, MZ) [kg m],
 *        [ h^T             m ]   m = M [kg].
 * PI >= 0 exactly when some non-negative mass distribution has these
 * parameters ("density realisable"). */
void dy_pseudo_inertia(const double par10[10], double PI[16]);

/* Joint transform of joint j at position qj: R (row-major 3x3, frame j
 * axes in frame j-1) and p (O_j in frame j-1 [m]). */
void dy_jointframe(const dyModel* m, int j, double qj, double R[9], double p[3]);

/* Forward kinematics: pose of frame j (0-based joint index, j = n means the
 * tip frame tip_T) in the source base frame (base_T applied), as R (row-major)
 * and p [m]. q has n entries. */
void dy_fk(const dyModel* m, const double* q, int j, double R[9], double p[3]);

#endif
