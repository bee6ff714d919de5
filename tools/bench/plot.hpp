// ragged-bench's figures, drawn by gnuplot (Debian: gnuplot-nox). For DIR/NAME.svg or
// DIR/NAME.png the data go to DIR/NAME.dat and the script to DIR/NAME.gp; gnuplot runs the
// script in DIR (`cd DIR && gnuplot NAME.gp` draws the figure again).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace ragged::bench {

struct PlotPoint {
  double x = 0;
  double y = 0;
  double error = -1;  ///< half the error bar; negative: none
};

struct Series {
  std::string title;
  std::vector<PlotPoint> points;
};

struct Figure {
  enum class Style {
    lines,  ///< one line with markers per series
    bars,   ///< boxes (with error bars where given); one series
  };
  Style style = Style::lines;
  std::string title;
  std::string x_label;
  std::string y_label;
  double log_x = 0;  ///< base of a logarithmic x axis; 0: linear
  double log_y = 0;  ///< base of a logarithmic y axis; 0: linear
  bool y_from_zero = false;
  std::string y_format;                                ///< gnuplot format of the y tick labels; "": gnuplot's
  std::vector<std::pair<double, std::string>> x_tics;  ///< labelled x ticks; empty: gnuplot's
  std::vector<Series> series;
};

/// Throws InvalidArgument(option) unless `path` ends in .svg or .png and gnuplot is on PATH.
void check_plot_target(const std::string& path, const std::string& option);

/// Writes the data and the script beside `path` and runs gnuplot to draw `path` (.svg or
/// .png). Throws InvalidArgument(option) for a bad path, a missing gnuplot or an empty
/// figure, Error when gnuplot fails.
void draw(const Figure& figure, const std::string& path, const std::string& option);

}  // namespace ragged::bench
