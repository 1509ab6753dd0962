// The form for plugin metric options (views/plugin_options_form.h) in Score Layers…: built from
// what each metric declares, it writes the options text strata-cli score --plugin-options takes,
// that text goes through QSettings and back, and the scan's metrics accept it.

#include "plugin_options_form.h"

#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include "plugin/metric_options_text.h"
#include "plugin/plugin_metric.h"
#include "score_layers_dialog.h"

using namespace strata;

namespace {

plugin::MetricEntry metric(const std::string& name, std::vector<plugin::OptionInfo> options) {
  plugin::MetricEntry m;
  m.info.name = name;
  m.info.description = name + " metric";
  m.info.source = "/plugins/" + name + ".so";
  m.options = std::move(options);
  return m;
}

/** As the shipped plugins declare them: twonn_id with two options, cka_prev with none. */
std::vector<plugin::MetricEntry> loadedMetrics() {
  return {metric("twonn_id", {{"estimator", "fit", "fit (the paper's) or mle"},
                              {"discard", "0.1", "share of the largest ratios left out"}}),
          metric("cka_prev", {}), metric("toy", {{"k", "5", "neighbours"}})};
}

}  // namespace

class PluginOptionsFormTest : public QObject {
  Q_OBJECT

 private slots:
  void theFormIsGeneratedFromTheDeclaredOptions() {
    PluginOptionsForm form(loadedMetrics());
    QVERIFY(!form.isEmpty());
    QLineEdit* estimator = form.field("twonn_id", "estimator");
    QVERIFY(estimator);
    QCOMPARE(estimator->placeholderText(), QStringLiteral("fit"));
    QVERIFY(estimator->toolTip().contains(QStringLiteral("fit (the paper's) or mle")));
    QCOMPARE(form.field("twonn_id", "discard")->placeholderText(), QStringLiteral("0.1"));
    QCOMPARE(form.field("toy", "k")->placeholderText(), QStringLiteral("5"));
    QVERIFY(!form.field("cka_prev", "anything"));  // no options: no fields
    QCOMPARE(form.optionsText(), QString());       // empty fields: every default

    PluginOptionsForm none({metric("cka_prev", {})});
    QVERIFY(none.isEmpty());
  }

  void filledFieldsBecomeTheCliOptionsText() {
    PluginOptionsForm form(loadedMetrics());
    form.field("twonn_id", "estimator")->setText(QStringLiteral("mle"));
    form.field("twonn_id", "discard")->setText(QStringLiteral("0.2"));
    form.field("toy", "k")->setText(QStringLiteral("7"));
    const QString text = form.optionsText();
    QCOMPARE(text, QStringLiteral("toy:k=7,twonn_id:estimator=mle;discard=0.2"));

    // The scan's parser (the CLI's too) reads it back, and the metrics accept their options.
    const auto perMetric = plugin::parseMetricOptionsText(text.toStdString());
    QCOMPARE(perMetric.size(), std::size_t{2});
    QCOMPARE(QString::fromStdString(perMetric.at("twonn_id")),
             QStringLiteral("estimator=mle;discard=0.2"));
    for (const plugin::MetricEntry& m : loadedMetrics())
      if (perMetric.count(m.info.name))
        QVERIFY_THROWS_NO_EXCEPTION(plugin::PluginMetric(m, perMetric.at(m.info.name)));

    // A value cannot hold the text's separators.
    QTest::keyClicks(form.field("toy", "k"), QStringLiteral(",;"));
    QCOMPARE(form.field("toy", "k")->text(), QStringLiteral("7"));
  }

  void theTextFillsTheFormAndUnknownOptionsAreDropped() {
    PluginOptionsForm form(loadedMetrics());
    form.setOptionsText(QStringLiteral("gone:x=1,twonn_id:estimator=mle;bogus=2"));
    QCOMPARE(form.field("twonn_id", "estimator")->text(), QStringLiteral("mle"));
    QCOMPARE(form.field("twonn_id", "discard")->text(), QString());
    QCOMPARE(form.optionsText(), QStringLiteral("twonn_id:estimator=mle"));
    form.setOptionsText(QStringLiteral("not an options text"));  // damaged: every default
    QCOMPARE(form.optionsText(), QString());
  }

  void resetToDefaultsEmptiesEveryField() {
    PluginOptionsForm form(loadedMetrics());
    form.setOptionsText(QStringLiteral("twonn_id:estimator=mle,toy:k=3"));
    QTest::mouseClick(form.resetButton(), Qt::LeftButton);
    QCOMPARE(form.optionsText(), QString());
  }

  void scoreLayersRoundTripsTheOptionsThroughQSettings() {
    QTemporaryDir dir;
    QSettings settings(dir.filePath(QStringLiteral("strata.ini")), QSettings::IniFormat);
    {
      ScoreLayersDialog dialog(QStringLiteral("/tmp/store.h5"), 1000);
      dialog.setPluginMetrics(loadedMetrics());
      QVERIFY(dialog.pluginOptionsForm());
      dialog.pluginOptionsForm()->field("twonn_id", "estimator")->setText(QStringLiteral("mle"));
      dialog.pluginOptionsForm()->field("toy", "k")->setText(QStringLiteral("9"));
      QCOMPARE(dialog.settings().pluginOptions, std::string("toy:k=9,twonn_id:estimator=mle"));
      dialog.saveSettings(settings);
    }
    QCOMPARE(settings.value(QStringLiteral("geometry/pluginOptions")).toString(),
             QStringLiteral("toy:k=9,twonn_id:estimator=mle"));

    ScoreLayersDialog restored(QStringLiteral("/tmp/store.h5"), 1000);
    restored.setPluginMetrics(loadedMetrics());
    restored.restoreSettings(settings);
    QCOMPARE(restored.pluginOptionsForm()->field("twonn_id", "estimator")->text(),
             QStringLiteral("mle"));
    QCOMPARE(restored.pluginOptionsForm()->field("toy", "k")->text(), QStringLiteral("9"));
    QCOMPARE(restored.settings().pluginOptions, std::string("toy:k=9,twonn_id:estimator=mle"));

    restored.setSettings({});  // the dialog's Restore Defaults
    QCOMPARE(restored.settings().pluginOptions, std::string());
  }

  void scoreLayersNamesItsDefaultsButtonsAlike() {
    // One dialog once offered "Reset to Defaults" (the plugin options) beside "Restore
    // Defaults" (the whole dialog).
    ScoreLayersDialog dialog(QStringLiteral("/tmp/store.h5"), 1000);
    dialog.setPluginMetrics(loadedMetrics());
    QStringList defaultsButtons;
    for (const QPushButton* button : dialog.findChildren<QPushButton*>())
      if (button->text().contains(QStringLiteral("Default")))
        defaultsButtons << QString(button->text()).remove(QLatin1Char('&'));
    QCOMPARE(defaultsButtons.size(), 2);
    for (const QString& text : defaultsButtons)
      QVERIFY2(
          text.startsWith(QStringLiteral("Restore ")) && text.endsWith(QStringLiteral("Defaults")),
          qPrintable(defaultsButtons.join(QStringLiteral(" | "))));
  }

  void withoutPluginOptionsTheDialogHasNoFormAndKeepsTheSavedText() {
    QTemporaryDir dir;
    QSettings settings(dir.filePath(QStringLiteral("strata.ini")), QSettings::IniFormat);
    settings.setValue(QStringLiteral("geometry/pluginOptions"), QStringLiteral("toy:k=9"));
    ScoreLayersDialog dialog(QStringLiteral("/tmp/store.h5"), 1000);
    dialog.setPluginMetrics({metric("cka_prev", {})});
    QVERIFY(!dialog.pluginOptionsForm());
    dialog.restoreSettings(settings);
    QCOMPARE(dialog.settings().pluginOptions, std::string());  // nothing loaded to apply it to
    dialog.saveSettings(settings);
    QCOMPARE(settings.value(QStringLiteral("geometry/pluginOptions")).toString(),
             QStringLiteral("toy:k=9"));
  }
};

QTEST_MAIN(PluginOptionsFormTest)
#include "plugin_options_form_test.moc"
