/* dynid ident: the PARAMS file (see params.h). Reading parses every
 * expression into a row of B (dyi_expr_parse), so the file describes its own
 * base set; P = B^+ (dyi_base_pinv) gives the realisation pi = P beta with
 * B P = 1, hence Y pi = Y_b beta for any valid set, whichever wrote it. */
#include "params.h"
#include "io.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

int dyi_params_write(FILE* f, const dyModel* m, const dyBase* b, const double* value,
                     const double* std, const char* comment) {
  if (comment && *comment) {
    const char* s = comment;
    while (*s) {
      const char* e = strchr(s, '\n');
      int L = e ? (int)(e - s) : (int)strlen(s);
      fprintf(f, "# %.*s\n", L, s);
      s += L + (e ? 1 : 0);
    }
  }
  fprintf(f, "name,value,std,rel_std_pct,expression\n");
  int cap = 4096;
  char* buf = malloc((size_t)cap);
  if (!buf) return -1;
  for (int i = 0; i < b->nb; i++) {
    int need = dyi_base_expr(m, b, i, buf, cap);
    if (need >= cap) {
      char* nb = realloc(buf, (size_t)need + 1);
      if (!nb) { free(buf); return -1; }
      buf = nb; cap = need + 1;
      dyi_base_expr(m, b, i, buf, cap);
    }
    fprintf(f, "%s,", b->name[i]);
    dy_fprint_double(f, value[i]);
    fputc(',', f);
    double sd = std ? std[i] : NAN;
    if (isfinite(sd)) {
      dy_fprint_double(f, sd);
      fputc(',', f);
      if (value[i] != 0) dy_fprint_double(f, 100 * sd / fabs(value[i]));
    } else fputc(',', f);
    fprintf(f, ",%s\n", buf);
  }
  free(buf);
  return ferror(f) ? -1 : 0;
}

void dyi_params_free(dyParams* p) {
  if (!p) return;
  dyi_base_free(p->base);
  free(p->value);
  free(p->std);
  free(p);
}

/* the '#' lines at the top of the file, joined with newlines */
static void read_comments(const char* path, char* out, int outsz) {
  out[0] = 0;
  FILE* f = fopen(path, "r");
  if (!f) return;
  char line[1024];
  int len = 0;
  while (fgets(line, sizeof line, f)) {
    const char* s = line;
    while (*s == ' ' || *s == '\t') s++;
    if (*s == '\n' || *s == '\r' || *s == 0) continue;
    if (*s != '#') break;
    s++;
    if (*s == ' ') s++;
    size_t L = strcspn(s, "\r\n");
    if (len + (int)L + 2 >= outsz) break;
    if (len) out[len++] = '\n';
    memcpy(out + len, s, L);
    len += (int)L;
    out[len] = 0;
  }
  fclose(f);
}

/* a message quoting file text stays one line: control characters
 * (newlines of a quoted field) become '?' */
static void one_line(char* s) {
  for (; *s; s++) if ((unsigned char)*s < 32) *s = '?';
}

dyParams* dyi_params_read(const char* path, const dyModel* m, char* err, int errsz) {
  dyCsv* csv = dy_csv_open(path, err, errsz);
  if (!csv) return NULL;
  int npar = dy_npar(m), nl = DY_NPAR_LINK * m->n;
  dyParams* p = calloc(1, sizeof *p);
  int cap = 64, nb = 0, friction = 0;
  char (*names)[32] = malloc((size_t)cap * sizeof *names);
  double* B = malloc(sizeof(double) * (size_t)cap * (size_t)npar);
  double* val = malloc(sizeof(double) * (size_t)cap);
  double* sd = malloc(sizeof(double) * (size_t)cap);
  char** f;
  int nf, r, cname = -1, cval = -1, cstd = -1, cexpr = -1;
  if (!p || !names || !B || !val || !sd) { snprintf(err, (size_t)errsz, "%s: out of memory", path); goto fail; }
  read_comments(path, p->comment, sizeof p->comment);
  r = dy_csv_next(csv, &f, &nf, err, errsz);
  if (r <= 0) {
    if (r == 0) snprintf(err, (size_t)errsz, "%s: empty file, expected the header name,value,std,rel_std_pct,expression", path);
    goto fail;
  }
  cname = dy_csv_find(f, nf, "name");
  cval = dy_csv_find(f, nf, "value");
  cstd = dy_csv_find(f, nf, "std");
  cexpr = dy_csv_find(f, nf, "expression");
  if (cname < 0 || cval < 0 || cexpr < 0) {
    snprintf(err, (size_t)errsz, "%s:%ld: missing column '%s' in the header", path, dy_csv_line(csv),
             cname < 0 ? "name" : cval < 0 ? "value" : "expression");
    goto fail;
  }
  while ((r = dy_csv_next(csv, &f, &nf, err, errsz)) > 0) {
    int need = cname > cval ? cname : cval;
    if (cexpr > need) need = cexpr;
    if (nf <= need) {
      snprintf(err, (size_t)errsz, "%s:%ld:%d: row has %d columns, expected at least %d", path,
               dy_csv_line(csv), nf + 1, nf, need + 1);
      goto fail;
    }
    if (nb == npar) {   /* independent combinations of npar parameters: at most npar */
      snprintf(err, (size_t)errsz, "%s:%ld: more than %d base parameters, the number of standard "
               "parameters of the %d-joint model", path, dy_csv_line(csv), npar, m->n);
      goto fail;
    }
    if (nb == cap) {
      cap *= 2;
      void* a = realloc(names, (size_t)cap * sizeof *names);
      if (a) names = a;
      void* b2 = realloc(B, sizeof(double) * (size_t)cap * (size_t)npar);
      if (b2) B = b2;
      void* c2 = realloc(val, sizeof(double) * (size_t)cap);
      if (c2) val = c2;
      void* d2 = realloc(sd, sizeof(double) * (size_t)cap);
      if (d2) sd = d2;
      if (!a || !b2 || !c2 || !d2) { snprintf(err, (size_t)errsz, "%s: out of memory", path); goto fail; }
    }
    snprintf(names[nb], sizeof names[nb], "%s", f[cname]);
    if (dy_csv_double(csv, f[cval], cval, 0, &val[nb], err, errsz)) goto fail;
    sd[nb] = NAN;
    if (cstd >= 0 && cstd < nf && f[cstd][strspn(f[cstd], " \t")] != 0)
      if (dy_csv_double(csv, f[cstd], cstd, 1, &sd[nb], err, errsz)) goto fail;
    char perr[256];
    if (dyi_expr_parse(m, npar, f[cexpr], B + (size_t)nb*npar, perr, sizeof perr)) {
      snprintf(err, (size_t)errsz, "%s:%ld:%d: expression of %s: %s", path, dy_csv_line(csv), cexpr + 1,
               names[nb], perr);
      goto fail;
    }
    for (int k = nl; k < npar; k++) if (B[(size_t)nb*npar + k] != 0) friction = 1;
    nb++;
  }
  if (r < 0) goto fail;
  if (nb == 0) { snprintf(err, (size_t)errsz, "%s: no base parameters", path); goto fail; }
  int np = friction ? npar : nl;
  p->base = dyi_base_alloc("file", nb, np, friction);
  p->value = malloc(sizeof(double) * (size_t)nb);
  p->std = malloc(sizeof(double) * (size_t)nb);
  if (!p->base || !p->value || !p->std) { snprintf(err, (size_t)errsz, "%s: out of memory", path); goto fail; }
  /* the kinds of joint parameter the expressions use; the others are zero */
  if (friction) {
    p->base->joint_keep = 0;
    for (int i = 0; i < nb; i++)
      for (int k = nl; k < npar; k++)
        if (B[(size_t)i*npar + k] != 0) p->base->joint_keep |= 1u << ((k - nl) % DY_NPAR_JNT);
  }
  for (int i = 0; i < nb; i++) {
    memcpy(p->base->name[i], names[i], sizeof p->base->name[i]);
    memcpy(p->base->B + (size_t)i*np, B + (size_t)i*npar, sizeof(double) * (size_t)np);
    p->value[i] = val[i];
    p->std[i] = sd[i];
    /* the lead: the parameter named by the name without its R suffix */
    char nm[32];
    snprintf(nm, sizeof nm, "%s", names[i]);
    size_t L = strlen(nm);
    int k = dy_parindex(m, nm);
    if (k < 0 && L > 1 && (nm[L-1] == 'R' || nm[L-1] == 'r')) { nm[L-1] = 0; k = dy_parindex(m, nm); }
    p->base->lead[i] = k < np ? k : -1;
  }
  {
    char perr[256];
    if (dyi_base_pinv(p->base, perr, sizeof perr)) {
      snprintf(err, (size_t)errsz, "%s: %s", path, perr);
      goto fail;
    }
  }
  free(names); free(B); free(val); free(sd);
  dy_csv_close(csv);
  return p;
fail:
  one_line(err);
  free(names); free(B); free(val); free(sd);
  dy_csv_close(csv);
  dyi_params_free(p);
  return NULL;
}

void dyi_params_realise(const dyModel* m, const dyParams* p, double* par) {
  int npar = dy_npar(m), np = p->base->npar, nb = p->base->nb;
  for (int k = 0; k < npar; k++) {
    double s = 0;
    if (k < np)
      for (int i = 0; i < nb; i++) s += p->base->P[(size_t)k*nb + i] * p->value[i];
    par[k] = s;
  }
}
