/*
 * confidence_model.h: the coefficients of the confidence model (confidence.c).
 *
 * Written by bench/quality/confidence.py --write (do not edit by hand): a logistic regression
 * over the standardized features of lp_search_conf_names, fitted on the dev kit (positives:
 * a question asked on its own repository whose answer is right; negatives: wrong answers,
 * the same questions asked on another repository, and the hand set asked on the kit). See
 * docs/decisions/0015-file-view-and-confidence.md for the data, the held-out figures and
 * the threshold.
 */
#ifndef LP_CONFIDENCE_MODEL_H
#define LP_CONFIDENCE_MODEL_H

/* topScore, margin2, margin5, topCover, top5Cover, nameCover, docCover, channels, exact, logOwners, logLexical, logWords */
static const double conf_mean[LP_CONF_NFEAT] = {1.5808, 0.144775, 0.315295, 0.32424, 0.547899, 0.0893466, 0.162661, 1.07878, 0.0690104, 5.26513, 2.84363, 2.45084};
static const double conf_scale[LP_CONF_NFEAT] = {0.32703, 0.252249, 0.296231, 0.155829, 0.176325, 0.104088, 0.178809, 0.269389, 0.253472, 0.383343, 0.397522, 0.406859};
static const double conf_coef[LP_CONF_NFEAT] = {-0.531017, 0.0999902, 0.158008, 0.166826, 0.656993, 0.666867, 0.140982, 0.925545, 0.395985, -0.302531, 0.795087, 0.142109};
static const double conf_bias = -2.37672;
static const double conf_threshold = 0.19;

#endif
