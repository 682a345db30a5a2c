/*
 * confidence_model.h: the coefficients of the confidence model (confidence.c).
 *
 * Written by bench/quality/confidence.py (do not edit by hand): a logistic regression over
 * the standardized features of lp_search_conf_names, fitted on the dev kit (positives: a
 * question asked on its own repository whose answer is right; negatives: wrong answers and
 * the same questions asked on another repository). See
 * docs/decisions/0015-file-view-and-confidence.md for the data, the held-out figures and
 * the threshold.
 */
#ifndef LP_CONFIDENCE_MODEL_H
#define LP_CONFIDENCE_MODEL_H

/* Placeholder until fitted: the top owner's span coverage alone. */
static const double conf_mean[LP_CONF_NFEAT] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
static const double conf_scale[LP_CONF_NFEAT] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
static const double conf_coef[LP_CONF_NFEAT] = {0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0};
static const double conf_bias = -3.0;
static const double conf_threshold = 0.3;

#endif
