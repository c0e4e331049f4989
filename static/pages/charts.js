/* Draws each chart of a doc (pages/mdx.py): the spec comes from its JSON <script> element (json_script),
   never from the page's HTML, and vega-embed draws it from static/vendor/vega. Nothing is fetched: the data is
   inline, and the loader refuses any address a spec names (data, images, links). Expressions run in vega's
   interpreter (ast: true), not as generated code. vega-embed's and its tooltip's styles come from
   static/vendor/vega/vega-embed.css rather than <style> elements it would add (the Content-Security-Policy
   allows no inline style). */
(function () {
  "use strict";

  function refuse() {
    return Promise.reject(new Error("A chart in a doc draws only its own inline data."));
  }

  function loader() {
    var l = window.vega.loader();
    l.load = refuse;
    l.sanitize = refuse;
    l.http = refuse;
    l.file = refuse;
    return l;
  }

  function fail(view, message) {
    view.textContent = "";
    var p = document.createElement("p");
    p.className = "mdx-problem";
    p.textContent = "This chart couldn't be drawn: " + message;
    view.appendChild(p);
    view.classList.add("chart__view--failed");
  }

  function draw(view) {
    var source = document.getElementById(view.getAttribute("data-chart"));
    var spec;
    try {
      spec = JSON.parse(source.textContent);
    } catch (error) {
      fail(view, "its JSON can't be read.");
      return;
    }
    delete spec.usermeta; // vega-embed would take options from it
    if (spec.mark && spec.width === undefined && !spec.facet && !spec.repeat) {
      spec.width = "container";
    }
    window.vegaEmbed(view, spec, {
      mode: "vega-lite",
      renderer: "svg",
      ast: true,
      loader: loader(),
      defaultStyle: false,
      tooltip: { disableDefaultStyle: true },
      actions: { export: true, source: false, compiled: false, editor: false },
      // With its default style off, vega-embed draws the Save links as a bare list over the chart; this keeps
      // them in its "…" menu (a <details>, closed until opened), styled by vega-embed.css.
      forceActionsMenu: true,
      config: { font: getComputedStyle(document.body).fontFamily, background: null }
    }).then(function (result) {
      view.setAttribute("data-drawn", "true");
      var loading = view.querySelector(".chart__loading");
      if (loading) loading.remove();
      return result;
    }).catch(function (error) {
      fail(view, error && error.message ? error.message : "vega-lite refused it.");
    });
  }

  function start() {
    if (!window.vega || !window.vegaLite || !window.vegaEmbed) {
      document.querySelectorAll("[data-chart]").forEach(function (view) {
        fail(view, "the chart library didn't load.");
      });
      return;
    }
    document.querySelectorAll("[data-chart]").forEach(draw);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
