# Reference values of the campaign report's statistics (services/segmenter/src/campaigns/stats/*.test.ts).
# Run by hand, once, with Debian's R (apt-get install -y r-base-core): Rscript reference-values.R
# The tests hold its output as literals; CI does not run R. Each block prints `name = value` lines
# with 17 significant digits; the test beside the function quotes the line it freezes.
options(digits = 17)
out <- function(name, x) cat(name, "=", paste(format(x, digits = 17), collapse = ", "), "\n")

# normal.ts: quantiles and tails.
out("qnorm(0.975)", qnorm(0.975))
out("qnorm(0.9875)", qnorm(0.9875))
out("qnorm(0.995)", qnorm(0.995))
out("qnorm(0.8)", qnorm(0.8))
out("qnorm(1e-10)", qnorm(1e-10))
out("qnorm(0.3)", qnorm(0.3))
out("pnorm(-1.5)", pnorm(-1.5))

# chisq.ts: upper tails of the chi-square distribution and the SRM test.
out("pchisq(3.841458820694124, 1, upper)", pchisq(3.841458820694124, 1, lower.tail = FALSE))
out("pchisq(7.5, 3, upper)", pchisq(7.5, 3, lower.tail = FALSE))
out("pchisq(40, 10, upper)", pchisq(40, 10, lower.tail = FALSE))
out("pchisq(0.5, 4, upper)", pchisq(0.5, 4, lower.tail = FALSE))
out("pchisq(3600, 1, upper)", pchisq(3600, 1, lower.tail = FALSE))
t1 <- chisq.test(c(1100, 8900), p = c(0.1, 0.9))
out("chisq 1100/8900 under 10/90: statistic", unname(t1$statistic))
out("chisq 1100/8900 under 10/90: p", t1$p.value)
t2 <- chisq.test(c(1000, 1000), p = c(0.1, 0.9))
out("chisq 1000/1000 under 10/90: statistic", unname(t2$statistic))
out("chisq 1000/1000 under 10/90: p", t2$p.value)
t3 <- chisq.test(c(230, 1290, 2480), p = c(0.05, 0.95 / 3, 0.95 * 2 / 3))
out("chisq 230/1290/2480 under holdout 0.05, weights 1:2: statistic", unname(t3$statistic))
out("chisq 230/1290/2480 under holdout 0.05, weights 1:2: p", t3$p.value)

# proportions.ts: Wald, Agresti-Caffo, Wilson, Newcombe (hybrid score, Newcombe 1998 method 10).
wald <- function(xv, nv, xc, nc, z = qnorm(0.975)) {
  pv <- xv / nv; pc <- xc / nc
  (pv - pc) + c(-1, 1) * z * sqrt(pv * (1 - pv) / nv + pc * (1 - pc) / nc)
}
ac <- function(xv, nv, xc, nc, z = qnorm(0.975)) {
  pv <- (xv + 1) / (nv + 2); pc <- (xc + 1) / (nc + 2)
  (pv - pc) + c(-1, 1) * z * sqrt(pv * (1 - pv) / (nv + 2) + pc * (1 - pc) / (nc + 2))
}
wilson <- function(x, n) as.numeric(prop.test(x, n, correct = FALSE)$conf.int)
newcombe <- function(xv, nv, xc, nc) {
  pv <- xv / nv; pc <- xc / nc; v <- wilson(xv, nv); c <- wilson(xc, nc)
  d <- pv - pc
  c(d - sqrt((pv - v[1])^2 + (c[2] - pc)^2), d + sqrt((v[2] - pv)^2 + (pc - c[1])^2))
}
out("wald 80/1000 vs 50/1000", wald(80, 1000, 50, 1000))
out("agresti-caffo 80/1000 vs 50/1000", ac(80, 1000, 50, 1000))
out("agresti-caffo 0/100 vs 0/900 (variant 0/900, control 0/100)", ac(0, 900, 0, 100))
out("agresti-caffo 20/900 vs 1/100", ac(20, 900, 1, 100))
out("agresti-caffo 80/1000 vs 50/1000 at 1-0.05/4", ac(80, 1000, 50, 1000, qnorm(1 - 0.05 / 8)))
out("wilson 2/100", wilson(2, 100))
out("wilson 0/50", wilson(0, 50))
out("newcombe 80/1000 vs 50/1000", newcombe(80, 1000, 50, 1000))
out("newcombe 20/900 vs 1/100", newcombe(20, 900, 1, 100))

# multiplicity.ts: Holm and Benjamini-Hochberg.
out("holm [0.01, 0.04, 0.03, 0.20]", p.adjust(c(0.01, 0.04, 0.03, 0.20), "holm"))
out("BH [0.01, 0.04, 0.03, 0.20]", p.adjust(c(0.01, 0.04, 0.03, 0.20), "BH"))
out("holm [0.5, 0.001, 0.02, 0.02, 0.9]", p.adjust(c(0.5, 0.001, 0.02, 0.02, 0.9), "holm"))
out("BH [0.5, 0.001, 0.02, 0.02, 0.9]", p.adjust(c(0.5, 0.001, 0.02, 0.02, 0.9), "BH"))

# sequential.ts: the normal-mixture confidence sequence (Howard et al. 2021, eq. 14; GrowthBook's
# sequential_interval_halfwidth) at alpha = 0.05, tuned for n* users: tau^2 = s2 * rho^2 with
# rho^2 = (-2 log alpha + log(1 - 2 log alpha)) / n*, s2 the per-user variance v * n.
halfwidth <- function(v, n, nstar, alpha = 0.05) {
  rho2 <- (-2 * log(alpha) + log(1 - 2 * log(alpha))) / nstar
  s2 <- v * n
  sqrt(s2) * sqrt((2 * (n * rho2 + 1)) / (n * n * rho2) * log(sqrt(n * rho2 + 1) / alpha))
}
msprt_p <- function(d, v, n, nstar, alpha = 0.05) {
  rho2 <- (-2 * log(alpha) + log(1 - 2 * log(alpha))) / nstar
  tau2 <- v * n * rho2
  lambda <- sqrt(v / (v + tau2)) * exp(tau2 * d^2 / (2 * v * (v + tau2)))
  min(1, 1 / lambda)
}
# Agresti-Caffo centre and variance of 80/1000 vs 50/1000, n = 2000 users, n* = 5000.
pv <- 81 / 1002; pc <- 51 / 1002
v <- pv * (1 - pv) / 1002 + pc * (1 - pc) / 1002
out("sequential 80/1000 vs 50/1000, n* 5000: centre", pv - pc)
out("sequential 80/1000 vs 50/1000, n* 5000: halfwidth", halfwidth(v, 2000, 5000))
out("sequential 80/1000 vs 50/1000, n* 5000: p", msprt_p(pv - pc, v, 2000, 5000))
out("sequential 80/1000 vs 50/1000, n* 2000: halfwidth", halfwidth(v, 2000, 2000))

# bayes.ts: Beta(1,1) priors; P(p_v > p_c) and the expected loss E[max(p_c - p_v, 0)] of choosing the
# variant, by numerical integration.
p_beat <- function(xv, nv, xc, nc) {
  av <- 1 + xv; bv <- 1 + nv - xv; a <- 1 + xc; b <- 1 + nc - xc
  integrate(function(q) dbeta(q, av, bv) * pbeta(q, a, b), 0, 1, rel.tol = 1e-12)$value
}
loss <- function(xv, nv, xc, nc) {
  av <- 1 + xv; bv <- 1 + nv - xv; a <- 1 + xc; b <- 1 + nc - xc
  # E[(p_c - q)+] for fixed p_v = q, then over q.
  inner <- function(q) (a / (a + b)) * pbeta(q, a + 1, b, lower.tail = FALSE) - q * pbeta(q, a, b, lower.tail = FALSE)
  integrate(function(q) dbeta(q, av, bv) * inner(q), 0, 1, rel.tol = 1e-12)$value
}
out("P(beat) 80/1000 vs 50/1000", p_beat(80, 1000, 50, 1000))
out("loss 80/1000 vs 50/1000", loss(80, 1000, 50, 1000))
out("P(beat) 3/40 vs 2/45", p_beat(3, 40, 2, 45))
out("loss 3/40 vs 2/45", loss(3, 40, 2, 45))

# power.ts: users per group for 80% power at alpha 0.05 two-sided, equal groups (power.prop.test).
out("power.prop.test 0.05 -> 0.06", power.prop.test(p1 = 0.05, p2 = 0.06, power = 0.8)$n)
out("power.prop.test 0.02 -> 0.03", power.prop.test(p1 = 0.02, p2 = 0.03, power = 0.8)$n)
out("power of n=5000 per group 0.05 -> 0.06", power.prop.test(n = 5000, p1 = 0.05, p2 = 0.06)$power)

# cuped.ts: a small data set, theta = cov(x, y) / var(x) pooled over both arms, the adjusted means and
# the variance reduction of the control's mean.
xc <- c(0, 1, 2, 0, 3, 1, 0, 0, 2, 1); yc <- c(0, 1, 1, 0, 1, 1, 0, 0, 1, 0)
xv <- c(1, 0, 2, 0, 0, 4, 1, 0, 1, 2, 0, 3); yv <- c(1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1)
x <- c(xc, xv); y <- c(yc, yv)
# Pooled within-arm covariance over pooled within-arm variance.
wc <- function(a, b) sum((a - mean(a)) * (b - mean(b)))
theta <- (wc(xc, yc) + wc(xv, yv)) / (wc(xc, xc) + wc(xv, xv))
out("cuped theta", theta)
mx <- mean(x)
out("cuped adjusted mean control", mean(yc - theta * (xc - mx)))
out("cuped adjusted mean variant", mean(yv - theta * (xv - mx)))
out("cuped adjusted var control (sample)", var(yc - theta * xc))
out("cuped adjusted var variant (sample)", var(yv - theta * xv))
out("cuped raw var control (sample)", var(yc))
out("cuped raw var variant (sample)", var(yv))

# srm.ts, per edit period: 1,000 users under holdout 0.5, then 1,000 under 0.1; 200 control of the
# second 1,000 (700 / 1,300 against 600 / 1,400 expected).
t4 <- chisq.test(c(700, 1300), p = c(600, 1400) / 2000)
out("chisq 700/1300 against 600/1400 (edited split): statistic", unname(t4$statistic))
out("chisq 700/1300 against 600/1400 (edited split): p", t4$p.value)

# guardrail.ts: one-sided harm test on the Agresti-Caffo centre and variance, arm vs reference.
harm <- function(xa, na, xr, nr) {
  pa <- (xa + 1) / (na + 2); pr <- (xr + 1) / (nr + 2)
  pnorm((pa - pr) / sqrt(pa * (1 - pa) / (na + 2) + pr * (1 - pr) / (nr + 2)), lower.tail = FALSE)
}
out("harm 30/1000 vs 15/1000", harm(30, 1000, 15, 1000))
out("harm 2/500 vs 9/1000", harm(2, 500, 9, 1000))
out("harm 0/100 vs 0/200", harm(0, 100, 0, 200))

# student.ts: the t distribution (Welch's degrees of freedom are not whole).
out("pt(-2.1, 7.3)", pt(-2.1, 7.3))
out("pt(1.5, 30)", pt(1.5, 30))
out("qt(0.975, 12.7)", qt(0.975, 12.7))
out("qt(0.975, 1000)", qt(0.975, 1000))

# values.ts: value per user (0 for users who did not reach the goal), Welch's t.test and the delta
# method for the relative uplift m_v / m_c - 1.
vc <- c(0, 0, 12.5, 0, 40, 0, 0, 7.25, 0, 0, 99, 0)
vv <- c(0, 25, 0, 0, 60, 13, 0, 0, 45.5, 0, 0, 80, 0, 9)
w <- t.test(vv, vc, var.equal = FALSE)
out("welch vv - vc: estimate", mean(vv) - mean(vc))
out("welch vv - vc: conf.int", as.numeric(w$conf.int))
out("welch vv - vc: df", unname(w$parameter))
out("welch vv - vc: p", w$p.value)
qc <- var(vc) / length(vc); qv <- var(vv) / length(vv)
rse <- sqrt(qv / mean(vc)^2 + mean(vv)^2 * qc / mean(vc)^4)
out("delta vv / vc - 1: estimate", mean(vv) / mean(vc) - 1)
out("delta vv / vc - 1: se", rse)
out("delta vv / vc - 1: ci", mean(vv) / mean(vc) - 1 + c(-1, 1) * qnorm(0.975) * rse)
out("sums vc: n, sy, syy", c(length(vc), sum(vc), sum(vc^2)))
out("sums vv: n, sy, syy", c(length(vv), sum(vv), sum(vv^2)))
