// Casebook's small progressive enhancements. Every page works without this
// file; it adds copy buttons and the interactive graph.
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  // The page's words come from the server's message catalogue, carried on
  // <body data-msg-*>, so the scripts speak the page's language.
  function msg(key) { return (document.body && document.body.dataset[key]) || ""; }
  var korean = document.documentElement.lang === "ko";

  function addCopyButtons(root) {
    root.querySelectorAll("pre > code").forEach(function (code) {
      var pre = code.parentElement;
      if (pre.querySelector(".copy")) return;
      var b = document.createElement("button");
      b.type = "button";
      b.className = "copy";
      b.textContent = msg("msgCopy");
      b.setAttribute("aria-label", msg("msgCopyLabel"));
      pre.classList.add("copyable");
      b.addEventListener("click", function () {
        var text = code.innerText;
        var done = function () { b.textContent = msg("msgCopied"); setTimeout(function () { b.textContent = msg("msgCopy"); }, 1500); };
        if (navigator.clipboard && window.isSecureContext) {
          navigator.clipboard.writeText(text).then(done, function () {});
        } else {
          var ta = document.createElement("textarea");
          ta.value = text; document.body.appendChild(ta); ta.select();
          try { document.execCommand("copy"); done(); } catch (e) {}
          document.body.removeChild(ta);
        }
      });
      pre.appendChild(b);
    });
  }

  var colours = { cause: "#c2410c", component: "#1d4ed8", symptom: "#7e22ce", factor: "#0f766e", "case": "#4b5563" };

  function initGraphs(root) {
    if (typeof window.cytoscape !== "function") return;
    // Cytoscape injects a <style> element unless one with this id exists;
    // the CSP refuses inline styles, so app.css carries the rule instead.
    if (!document.getElementById("__________cytoscape_stylesheet")) {
      var marker = document.createElement("meta");
      marker.id = "__________cytoscape_stylesheet";
      document.head.appendChild(marker);
    }
    root.querySelectorAll(".graph-canvas[data-graph-url]").forEach(function (el) {
      if (el.dataset.ready) return;
      el.dataset.ready = "1";
      fetch(el.dataset.graphUrl, { headers: { Accept: "application/json" } })
        .then(function (r) { return r.json(); })
        .then(function (g) { drawGraph(el, g); })
        .catch(function () { el.textContent = msg("msgGraphFailed"); });
    });
  }

  // Beside a long list the panel draws the terms only, joined where they
  // share cases, and adds a term's cases when it is focused: a few hundred
  // case boxes make a cloud no one can read at that size.
  var maxTermLinks = 300;

  function drawGraph(el, g) {
    var elements = [];
    var termsOnly = el.dataset.termsOnly === "1";
    var cases = {}, casesOf = {}, termsOf = {}, links = 0;
    (g.nodes || []).forEach(function (n) {
      var data = { id: n.id, label: (korean && n.label_ko) || n.label, kind: n.kind, count: n.count };
      if (termsOnly && n.kind === "case") { cases[n.id] = data; return; }
      elements.push({ data: data });
    });
    (g.edges || []).forEach(function (e, i) {
      if (termsOnly) {
        if (e.kind === "case") {
          (casesOf[e.target] = casesOf[e.target] || []).push(e.source);
          (termsOf[e.source] = termsOf[e.source] || []).push(e.target);
        } else if (e.weight > 1 && links < maxTermLinks) {
          links++; // the edges come heaviest first
          elements.push({ data: { id: "e" + i, source: e.source, target: e.target, weight: e.weight, shared: 1 } });
        }
        return;
      }
      if (e.kind !== "case") return; // the drawing shows case links; weights are in the data
      elements.push({ data: { id: "e" + i, source: e.source, target: e.target, weight: e.weight } });
    });
    var cy = window.cytoscape({
      container: el,
      elements: elements,
      wheelSensitivity: 0.2,
      style: [
        { selector: "node", style: { "background-color": function (n) { return colours[n.data("kind")] || "#888"; },
          label: "data(label)", "font-size": 12, "min-zoomed-font-size": 7, color: "#1d2330", "text-valign": "bottom", "text-margin-y": 2,
          "text-background-color": "#ffffff", "text-background-opacity": 0.7, "text-background-padding": 1,
          width: function (n) { return 8 + Math.min(22, 3 * n.data("count")); }, height: function (n) { return 8 + Math.min(22, 3 * n.data("count")); } } },
        { selector: "node[kind = 'case']", style: { shape: "round-rectangle", "font-size": 10, "min-zoomed-font-size": 9, color: "#4b5563" } },
        { selector: "edge", style: { width: 1, "line-color": "#cbd2dc", "curve-style": "haystack" } },
        { selector: "edge[shared]", style: { width: function (e) { return Math.min(5, 0.5 + e.data("weight") / 3); } } },
        { selector: ".faded", style: { opacity: 0.12 } },
        { selector: ".found", style: { "border-width": 3, "border-color": "#2563eb" } },
        { selector: "node:selected", style: { "border-width": 3, "border-color": "#f59e0b" } }
      ],
      // Cooling faster than the default 0.99 lays out a library-sized graph
      // in a quarter of the time, with the same clusters.
      layout: { name: "cose", animate: false, nodeRepulsion: 9000, idealEdgeLength: 60, coolingFactor: 0.95 }
    });
    // What a node answers: a term lights up its cases and, through them,
    // the causes, symptoms, components and factors that go with it ("which
    // causes go with GPU driver?"); a case lights up its terms.
    function hoodOf(n) {
      if (n.data("kind") === "case") return n.closedNeighborhood();
      var cases = n.neighborhood("node[kind = 'case']");
      return n.union(cases.closedNeighborhood());
    }
    // The cases drawn for the focused term when the panel shows terms only.
    var shown = cy.collection();
    function showCases(n) {
      if (!termsOnly || n.data("kind") === "case") return;
      cy.remove(shown);
      var ids = casesOf[n.id()] || [], p = n.position(), r = Math.min(160, 50 + 6 * ids.length), add = [];
      ids.forEach(function (id, i) {
        var a = 2 * Math.PI * i / ids.length;
        add.push({ group: "nodes", data: cases[id], position: { x: p.x + r * Math.cos(a), y: p.y + r * Math.sin(a) } });
        (termsOf[id] || []).forEach(function (t) { add.push({ group: "edges", data: { id: id + ">" + t, source: id, target: t } }); });
      });
      shown = cy.add(add);
    }
    function focus(n, zoom) {
      showCases(n);
      var hood = hoodOf(n);
      cy.elements().addClass("faded");
      hood.removeClass("faded");
      cy.nodes(":selected").unselect();
      n.select();
      el.dataset.selected = n.id();
      if (zoom) cy.fit(hood, 30);
      return hood;
    }
    // A slow press (a loaded machine, a touch screen) arrives as taphold.
    cy.on("tap taphold", "node", function (evt) {
      var n = evt.target;
      focus(n, !document.getElementById("library"));
      var id = n.id();
      var kind = n.data("kind");
      var value = id.substring(id.indexOf(":") + 1);
      var href = kind === "case" ? "/incidents/" + value : "/?" + kind + "=" + encodeURIComponent(value);
      var status = el.parentElement.querySelector(".graph-status");
      if (!status) {
        status = document.createElement("p");
        status.className = "graph-status";
        status.setAttribute("role", "status");
        el.parentElement.insertBefore(status, el.nextSibling);
      }
      status.innerHTML = "";
      var a = document.createElement("a");
      a.href = href;
      a.setAttribute("data-testid", "graph-focus-link");
      a.textContent = (kind === "case" ? msg("msgGraphOpen") : msg("msgGraphFilter")).replace("{label}", n.data("label"));
      status.appendChild(a);
      if (kind !== "case" && window.htmx && document.getElementById("library")) {
        // htmx restores only history entries it marked as its own, so mark
        // both; otherwise the back button changes the URL but not the list.
        history.replaceState({ htmx: true }, document.title, location.href);
        window.htmx.ajax("GET", href, { target: "#library", select: "#library", swap: "outerHTML" }).then(function () {
          history.pushState({ htmx: true }, "", href);
        });
      } else if (!document.getElementById("library")) {
        // The graph page keeps its focus in the address, so a focused view
        // can be shared and survives a reload.
        var u = new URL(location.href);
        u.searchParams.set("focus", id);
        history.replaceState(history.state, document.title, u.toString());
      }
    });
    cy.on("tap", function (evt) {
      if (evt.target !== cy) return;
      cy.remove(shown);
      cy.elements().removeClass("faded");
      cy.nodes(":selected").unselect();
      delete el.dataset.selected;
      if (!document.getElementById("library") && new URL(location.href).searchParams.has("focus")) {
        var u = new URL(location.href);
        u.searchParams.delete("focus");
        history.replaceState(history.state, document.title, u.toString());
      }
    });
    var start = new URL(location.href).searchParams.get("focus");
    if (start && !document.getElementById("library") && cy.getElementById(start).length) {
      focus(cy.getElementById(start), true);
    }
    addGraphFinder(el, cy, focus);
    el.cy = cy;
  }

  // A find box over the graph: typing marks the nodes whose label holds
  // the text; Enter focuses the first and zooms to it.
  function addGraphFinder(el, cy, focus) {
    if (el.parentElement.querySelector(".graph-find")) return;
    var input = document.createElement("input");
    input.type = "search";
    input.className = "graph-find";
    input.setAttribute("data-testid", "graph-find");
    input.setAttribute("aria-label", msg("msgGraphFind"));
    input.placeholder = msg("msgGraphFind");
    el.parentElement.insertBefore(input, el);
    function matches() {
      var q = input.value.trim().toLowerCase();
      cy.nodes().removeClass("found");
      if (!q) return cy.collection();
      var found = cy.nodes().filter(function (n) {
        return String(n.data("label")).toLowerCase().indexOf(q) >= 0 || n.id().toLowerCase().indexOf(q) >= 0;
      });
      found.addClass("found");
      return found;
    }
    input.addEventListener("input", matches);
    input.addEventListener("keydown", function (e) {
      if (e.key !== "Enter") return;
      e.preventDefault();
      var found = matches();
      if (found.length) focus(found[0], true);
    });
  }

  // The menu button folds the navigation on narrow screens; without
  // JavaScript the button stays hidden and the menu wraps, open.
  function initMenu() {
    var b = document.querySelector(".nav-toggle");
    if (!b || b.dataset.ready) return;
    b.dataset.ready = "1";
    b.hidden = false;
    var header = b.closest(".top");
    b.addEventListener("click", function () {
      var open = b.getAttribute("aria-expanded") !== "true";
      b.setAttribute("aria-expanded", String(open));
      header.classList.toggle("menu-open", open);
    });
  }

  // Disclosures marked data-collapse-narrow (the library's filters, a
  // playbook's contents) start folded on a narrow screen, so the results
  // come first; a person's own open or close is kept across htmx swaps.
  var chosen = {};
  function collapseNarrow(root) {
    root.querySelectorAll("details[data-collapse-narrow]").forEach(function (d) {
      if (d.dataset.collapseReady) return;
      d.dataset.collapseReady = "1";
      var key = d.getAttribute("data-testid") || "";
      var mq = window.matchMedia(d.classList.contains("toc-box") ? "(max-width: 980px)" : "(max-width: 760px)");
      if (mq.matches) {
        if (key in chosen) d.open = chosen[key]; else d.removeAttribute("open");
      }
      d.addEventListener("toggle", function () { if (mq.matches) chosen[key] = d.open; });
    });
  }

  // A long facet (organisations) gets a box that narrows its values as one
  // types, and opens its "show more" part while filtering.
  function initFacetFilters(root) {
    root.querySelectorAll(".facet-filter").forEach(function (input) {
      if (input.dataset.ready) return;
      input.dataset.ready = "1";
      input.hidden = false;
      var facet = input.closest(".facet");
      var more = facet.querySelector(".facet-more");
      input.addEventListener("input", function () {
        var q = input.value.trim().toLowerCase();
        facet.querySelectorAll(".facet-values li").forEach(function (li) {
          li.hidden = q !== "" && li.textContent.toLowerCase().indexOf(q) < 0;
        });
        if (more) {
          if (q) more.open = true;
          more.querySelector("summary").hidden = q !== "";
        }
      });
    });
  }

  // A paste's result answers a form post; the address bar gets the link
  // that shows it again, so a reload, a bookmark or a copied address keep
  // the paste.
  function keepPasteInAddress(root) {
    var sec = root.querySelector("[data-share-url]");
    if (!sec || !sec.dataset.shareUrl || location.pathname !== "/triage") return;
    history.replaceState(null, "", sec.dataset.shareUrl);
  }

  function init(root) { initMenu(); collapseNarrow(root); initFacetFilters(root); addCopyButtons(root); initGraphs(root); keepPasteInAddress(root); }
  document.addEventListener("DOMContentLoaded", function () { init(document); });
  document.addEventListener("htmx:afterSettle", function (e) { init(e.target.ownerDocument || document); });
})();
