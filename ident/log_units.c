/* SPDX-License-Identifier: MIT */
/* Units written in a log's header ("q1 [deg]", "t (ms)", "tau3_Nm"): the
 * name they annotate and the factor to SI (log.h). After an underscore a
 * unit of the tables below counts only with two letters or more, or "s"
 * (t_s): "tau1_m", a motor's torque, is not a torque in metres. */
#include "ident/log.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* the units a header may give, per quantity, with their factor to SI */
typedef struct { const char* u; double k; } unitDef;
static const unitDef U_T[] = {{"s", 1}, {"sec", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"\xc2\xb5s", 1e-6}, {"ns", 1e-9}, {0, 0}};
static const unitDef U_Q[] = {{"rad", 1}, {"deg", M_PI / 180}, {"\xc2\xb0", M_PI / 180}, {"degree", M_PI / 180},
                              {"degrees", M_PI / 180}, {"m", 1}, {"mm", 1e-3}, {0, 0}};
static const unitDef U_QD[] = {{"rad/s", 1}, {"deg/s", M_PI / 180}, {"\xc2\xb0/s", M_PI / 180}, {"m/s", 1},
                               {"mm/s", 1e-3}, {0, 0}};
static const unitDef U_QDD[] = {{"rad/s^2", 1}, {"rad/s2", 1}, {"rad/s\xc2\xb2", 1}, {"deg/s^2", M_PI / 180},
                                {"deg/s2", M_PI / 180}, {"deg/s\xc2\xb2", M_PI / 180}, {"m/s^2", 1}, {"m/s2", 1},
                                {"m/s\xc2\xb2", 1}, {"mm/s^2", 1e-3}, {"mm/s2", 1e-3}, {0, 0}};
static const unitDef U_TAU[] = {{"Nm", 1}, {"N.m", 1}, {"N m", 1}, {"N*m", 1}, {"N\xc2\xb7m", 1}, {"mNm", 1e-3},
                                {"mN.m", 1e-3}, {"mN m", 1e-3}, {"kNm", 1e3}, {"N", 1}, {"kN", 1e3}, {0, 0}};
static const unitDef U_CUR[] = {{"A", 1}, {"mA", 1e-3}, {0, 0}};
static const unitDef* const U_ALL[] = {U_T, U_Q, U_QD, U_QDD, U_TAU, U_CUR};

/* u (ul bytes) spells the unit d in any letter case ("DEG", "Deg", "NM",
 * "MS" is not ms), except that a leading milli stays a small m: "MNm",
 * "MA", "Mm" and "MS" would be mega, never ours */
static int unit_eq(const char* d, const char* u, size_t ul) {
  if (strlen(d) != ul || strncasecmp(d, u, ul)) return 0;
  return !(ul > 1 && d[0] == 'm' && u[0] == 'M');
}

/* u (ul bytes) in a table: its factor, or 0; the exact spelling first */
static double lookup(const unitDef* t, const char* u, size_t ul) {
  for (const unitDef* e = t; e->u; e++)
    if (strlen(e->u) == ul && !strncmp(e->u, u, ul)) return e->k;
  for (; t->u; t++)
    if (unit_eq(t->u, u, ul)) return t->k;
  return 0;
}

static int known(const char* u, size_t ul) {
  for (size_t i = 0; i < sizeof U_ALL / sizeof *U_ALL; i++)
    if (lookup(U_ALL[i], u, ul) > 0) return 1;
  return 0;
}

int dyi_unit_split(const char* cell, char* base, size_t bsz, char* unit, size_t usz) {
  while (*cell == ' ' || *cell == '\t') cell++;
  size_t L = strlen(cell);
  while (L > 0 && (cell[L-1] == ' ' || cell[L-1] == '\r' || cell[L-1] == '\t')) L--;
  const char* b = NULL; size_t bl = 0, ul = 0; const char* u = NULL;
  if (L > 2 && (cell[L-1] == ']' || cell[L-1] == ')')) {   /* NAME [UNIT], NAME (UNIT) */
    char open = cell[L-1] == ']' ? '[' : '(';
    const char* o = memchr(cell, open, L);
    if (o && o > cell) {
      b = cell; bl = (size_t)(o - cell);
      u = o + 1; ul = (size_t)(cell + L - 1 - u);
    }
  } else {   /* NAME_UNIT with a unit of the tables */
    const char* us = NULL;
    for (size_t k = L; k > 0; k--) if (cell[k-1] == '_') { us = cell + k - 1; break; }
    size_t ul0 = us ? (size_t)(cell + L - us - 1) : 0;   /* one letter only for seconds: tau1_m is no unit */
    if (us && us > cell && known(us + 1, ul0) && (ul0 > 1 || us[1] == 's')) {
      b = cell; bl = (size_t)(us - cell); u = us + 1; ul = (size_t)(cell + L - u);
    }
  }
  if (!b) return 0;
  while (bl > 0 && (b[bl-1] == ' ' || b[bl-1] == '_')) bl--;
  while (ul > 0 && *u == ' ') { u++; ul--; }
  while (ul > 0 && u[ul-1] == ' ') ul--;
  if (!bl || !ul || bl >= bsz || ul >= usz) return 0;
  memcpy(base, b, bl); base[bl] = 0;
  memcpy(unit, u, ul); unit[ul] = 0;
  return 1;
}

int dyi_unit_scale(int role, const char* unit, double* k) {
  static const unitDef* const T[] = {NULL, U_T, U_Q, U_QD, U_QDD, U_TAU};
  *k = 1;
  if (role < DYI_ROLE_T || role > DYI_ROLE_TAU) return 1;
  size_t ul = strlen(unit);
  double f = lookup(T[role], unit, ul);
  if (f > 0) { *k = f; return 0; }
  if (role == DYI_ROLE_TAU && (f = lookup(U_CUR, unit, ul)) > 0) { *k = f; return 2; }
  for (int r = DYI_ROLE_T; r <= DYI_ROLE_TAU; r++)
    if (r != role && lookup(T[r], unit, ul) > 0) return -1;
  return lookup(U_CUR, unit, ul) > 0 ? -1 : 1;
}
