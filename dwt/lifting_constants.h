// Table F.4: the lifting parameters of the irreversible 9/7 filter
// (F.4.8.2, F.3.8.2), shared by every backend so all use the same digits.
#pragma once

namespace mallat::dwt::lifting97 {

constexpr double kAlpha = -1.586134342059924;
constexpr double kBeta = -0.052980118572961;
constexpr double kGamma = 0.882911075530934;
constexpr double kDelta = 0.443506852043971;
constexpr double kK = 1.230174104914001;

}  // namespace mallat::dwt::lifting97
