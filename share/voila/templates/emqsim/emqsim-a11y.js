// Names what the widget library leaves unnamed in the course's panels, for a screen reader and a
// keyboard: each slider's handle gets its description as its name, Play's icon buttons their
// action, the figure's image the frame's description its readout carries (data-alt), and the box
// holding a readout becomes a polite live region (the readout itself is replaced on every move,
// so the region must be the element that stays). Runs again whenever the page changes.
(function () {
  "use strict";
  var ACTIONS = {"fa-play": "play", "fa-pause": "pause", "fa-stop": "stop", "fa-retweet": "repeat",
                 "fa-repeat": "repeat"};

  // A page of prose only scrolls with nothing inside it to focus: the scrolling region itself
  // takes the focus then, so a keyboard can scroll it (axe: scrollable-region-focusable).
  var FOCUSABLE = "a[href], button, input, select, textarea, [tabindex]";

  function focusable(root) {
    var cells = root.getElementById ? root.getElementById("rendered_cells") : null;
    if (cells && !cells.hasAttribute("tabindex") && !cells.querySelector(FOCUSABLE)) cells.setAttribute("tabindex", "0");
  }

  function label(root) {
    focusable(root);
    root.querySelectorAll(".widget-slider .noUi-handle").forEach(function (handle) {
      var text = handle.closest(".widget-slider").querySelector(".widget-label");
      var name = text ? text.textContent.trim() : "";
      if (name && handle.getAttribute("aria-label") !== name) handle.setAttribute("aria-label", name);
    });
    root.querySelectorAll(".widget-play button").forEach(function (button) {
      var icon = button.querySelector("i");
      var action = null;
      if (icon) icon.classList.forEach(function (c) { if (ACTIONS[c]) action = ACTIONS[c]; });
      if (action && button.getAttribute("aria-label") !== action) button.setAttribute("aria-label", action);
    });
    root.querySelectorAll("pre.emqsim-readout").forEach(function (pre) {
      var box = pre.parentElement;
      if (box && box.getAttribute("aria-live") !== "polite") box.setAttribute("aria-live", "polite");
      var panel = pre.closest(".widget-vbox");
      while (panel && !panel.querySelector("img.widget-image")) panel = panel.parentElement.closest(".widget-vbox");
      var img = panel && panel.querySelector("img.widget-image");
      var alt = pre.getAttribute("data-alt");
      if (img && alt && img.getAttribute("alt") !== alt) img.setAttribute("alt", alt);
    });
  }

  new MutationObserver(function () { label(document); }).observe(document.documentElement, {
    subtree: true, childList: true, attributes: true, attributeFilter: ["data-alt"]});
  label(document);
})();
