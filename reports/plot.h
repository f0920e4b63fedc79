/* SPDX-License-Identifier: MIT */
/* dynid reports: plots as inline SVG, drawn by PLplot's svg driver (the
 * plot library does the axes, ticks, labels and legends; we only pass data).
 * Each function writes one complete <svg> element into f, without the XML
 * prolog, ready to sit inside an HTML page. Returns 0, or -1 if PLplot
 * failed (nothing is written then). */
#ifndef DYNID_PLOT_H
#define DYNID_PLOT_H

#include <stdio.h>

#define DYP_MAXSERIES 8

typedef struct {
  const char* title;     /* above the plot */
  const char* xlabel;    /* with unit, e.g. "time [s]" */
  const char* ylabel;    /* with unit, e.g. "torque [N\xc2\xb7m]" (UTF-8 and PLplot's
                            escapes: #u superscript, #d back down, #g Greek) */
  int width, height;     /* pixels; 0: 720 x 300 */
  int color0;            /* palette entry (1..DYP_MAXSERIES) of the first series; 0: 1.
                            Series k takes color0 + k, so that the same thing keeps
                            its colour from plot to plot */
} cliPlotFrame;

/* Line plot of nseries series y_k(x) sharing x (npts each), with a legend
 * naming each series. Series longer than 2000 points are thinned for the
 * drawing by min/max envelopes per pixel column (peaks stay visible). */
int dyp_lines(FILE* f, const cliPlotFrame* fr, const double* x, int npts,
              const double* const* y, const char* const* names, int nseries);

/* Histogram of v (n values) in nbins bins, with a normal density of the same
 * mean and standard deviation drawn over it (legend says both). */
int dyp_histogram(FILE* f, const cliPlotFrame* fr, const double* v, int n, int nbins);

/* Histograms of nseries samples v[k] (n values each) over common bins, drawn
 * as outlines in the series' colours; the legend gives each name with its
 * mean and standard deviation. nseries = 1 is dyp_histogram. */
int dyp_histograms(FILE* f, const cliPlotFrame* fr, const double* const* v, int n,
                   const char* const* names, int nseries, int nbins);

/* Bar chart: one bar per label (n), value v[i]. */
int dyp_bars(FILE* f, const cliPlotFrame* fr, const char* const* labels,
             const double* v, int n);

/* Grouped bar chart: per label (n) one bar for each of nseries series,
 * v[k][i], in the series' colours, with a legend of names (NULL: none).
 * Each value stands upright over its bar (never overlapping a neighbour's)
 * when the bars are at least 1.2 character heights wide; narrower bars
 * carry no values, so the page shows them in a table beside the plot. */
int dyp_groupbars(FILE* f, const cliPlotFrame* fr, const char* const* labels,
                  const double* const* v, const char* const* names, int nseries, int n);

#endif
