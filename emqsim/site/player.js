/* emqsim static site: a live figure without a kernel.
 *
 * Each element .emqsim-player holds a JSON table (script.emqsim-data) written by
 * emqsim/site/player.py: the figure's controls, its pre-rendered pictures, its readouts, and
 * for each frame the picture, the readout and the position of every control. This script
 * builds a range input per slider (arrow keys step it), a drop-down per choice or preset
 * text, a Play button and speed for a slider that has one, and swaps picture and readout
 * as they move. Controls are resolved in order, as the model does: a control whose value
 * is not among the positions the earlier ones allow falls back to its default, else to
 * its first position. The pictures are files of the site (the table names them; the root's
 * data-frames says where): the browser fetches one when it is shown and the next and the
 * previous ones ahead, so the controls work at once on a slow link. Each picture's alt text
 * says what it shows (the table's alts, else the readout). No kernel, nothing from outside
 * the site.
 *
 * The figure's questions (fieldset.emqsim-question, written by the build with their
 * answers and feedback in the table) get their Check and Show me buttons here: Check shows
 * the feedback of the option picked, Show me moves the figure to the frame the question
 * names. The challenge line (p.emqsim-challenge) ticks when the frame shown is one the build
 * found meeting it (the table's `challenge.bits`, one character per frame), judged where the
 * reader stops: on every move by hand and when Play stops (paused, or at its end), never while
 * Play runs. Judged at each frame Play showed, 02's watch strip was met by pressing Play alone
 * (issue 30, h68r); its live region now stays quiet while Play runs. No challenge is met at
 * the last frame Play reaches (tests/test_challenge_positions.py). Play pressed, the line says the
 * plain goal again: a met line left up while Play ran read met at frames that are not (h71r).
 * The page does not scroll to a met line: scrolled into view, it took the slider in use under a
 * phone's sticky picture and the picture out of the window (h72r).
 */
(function () {
  "use strict";

  function make(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function setup(root) {
    var data = JSON.parse(root.querySelector("script.emqsim-data").textContent);
    var controls = data.controls, frames = data.frames;
    var img = root.querySelector("img.emqsim-frame");
    var readout = root.querySelector("pre.emqsim-readout");
    /* The readout's box fits the text it shows; the room it stands in (no background) keeps the
       height of its tallest text (reserve) once the reader takes a control in hand (hold), so the
       rows under it never move as the text changes. A box of the tallest text's height held 02's
       and 05's short readouts with half its height empty (issue 30); a room of that height at
       rest showed 05's pile-up with 5 lines of blank above its box on a desktop, 10 on a phone.
       The box stands at the room's top (player.css), its text right under the picture, the blank
       under it: at the room's bottom, once held, 05's pile-up read its text 110 px under the
       picture on a desktop (issue 30, h68r). */
    var readoutRoom = make("div", {"class": "emqsim-readout-room"});
    readout.parentNode.insertBefore(readoutRoom, readout);
    readoutRoom.appendChild(readout);
    var line = root.querySelector("p.emqsim-challenge");
    var box = root.querySelector(".emqsim-controls");
    /* The challenge line stands under the controls and the held note, often below the window when
       the reader's step meets it: under a phone's docked bar (04, 02's keys, 03's marker, 05: h71r),
       and on a desktop under 04's tall figure (its text at 889 px of 900: h73r). A scroll to it
       took the control in use out of sight (h72r). So the controls say it themselves: a line under
       their rows (the mark) reads "✓ Challenge met" at a met frame whose line is out of sight.
       Blank, it takes no room (player.css), but in a docked bar, which keeps its line so the rows
       never move; hidden from screen readers, which hear the line itself (a live region). */
    var mark = line && data.challenge ? make("p", {"class": "emqsim-met-mark", "aria-hidden": "true"}) : null;
    function lineInView() {
      var r = line.getBoundingClientRect();
      if (!r.height) return false;
      /* docked, the bar rides over the line until the player's end comes into the window */
      if (root.classList.contains("emqsim-docked") && r.top < box.getBoundingClientRect().bottom - 0.5) return false;
      return r.top >= clearTop() - 0.5 && r.bottom <= window.innerHeight + 0.5;
    }
    var base = root.getAttribute("data-frames") || "";
    /* a phone's pictures: the <source> the browser picks on a narrow screen, fetched instead of
       the img's (never both); a move updates both, the browser fetches the one it shows */
    var source = root.querySelector("picture source");
    var narrowBase = root.getAttribute("data-frames-narrow") || "";
    var narrowQuery = source && data.narrow && window.matchMedia ? window.matchMedia(source.media) : null;
    function picture(i) {
      return narrowQuery && narrowQuery.matches ? narrowBase + data.narrow[i] : base + data.images[i];
    }
    var byKey = {};
    frames.forEach(function (f, n) { byKey[f[2].join(",")] = n; });
    var cur = frames[data.start][2].slice();
    var shown = -1;
    var ui = [];
    /* [element, the texts it shows, what keeps their height]: each kept as tall as its tallest
       text (reserve); the readout by its room */
    var reserved = [[readout, data.readouts, readoutRoom]];
    var tallestLines = 0;       /* the readout's tallest text, in lines (reserve) */
    var roomHeight = 0;         /* its room's height when held, in px (reserve) */
    var held = false;           /* the room keeps roomHeight (hold) */
    var dockHeight = 0;         /* the docked readout's box and the blank under it, in px (readoutHeight) */
    var revealFeedback = function () {};

    function valueKey(k, i) { return JSON.stringify(controls[k].positions[i][1]); }

    /* The positions of control k reachable with the controls before it as they are now. */
    function avail(k) {
      var seen = {}, list = [];
      frames.forEach(function (f) {
        var p = f[2];
        for (var j = 0; j < k; j++) if (p[j] !== cur[j]) return;
        if (!seen[p[k]]) { seen[p[k]] = true; list.push(p[k]); }
      });
      return list;
    }

    function findValue(k, list, key) {
      for (var i = 0; i < list.length; i++) if (valueKey(k, list[i]) === key) return list[i];
      return -1;
    }

    /* Control k moved: each later control keeps its value if still reachable, else takes its
       default, else its first position. */
    function settle(k) {
      for (var j = k + 1; j < controls.length; j++) {
        var list = avail(j);
        var keep = findValue(j, list, valueKey(j, cur[j]));
        if (keep < 0) keep = findValue(j, list, JSON.stringify(controls[j].default));
        cur[j] = keep >= 0 ? keep : list[0];
      }
    }

    function show() {
      var n = byKey[cur.join(",")];
      if (n === undefined) return;
      ui.forEach(function (u) { u.sync(); });
      if (n === shown) return;
      shown = n;
      var f = frames[n];
      if (source && data.narrow) source.srcset = narrowBase + data.narrow[f[0]];
      img.src = base + data.images[f[0]];
      img.alt = f.length > 3 ? data.alts[f[3]] : data.readouts[f[1]];
      readout.textContent = data.readouts[f[1]];
      fitDocked();
      ahead(n);
      root.setAttribute("data-frame", String(n));
      if (!root.hasAttribute("data-playing")) judge();
    }

    /* The challenge line at the frame shown: ticked if it meets it, else the goal (changed only
       then). Not called while Play runs: Play's stop() calls it. */
    function judge() {
      if (!line || !data.challenge || shown < 0) return;
      setMet(data.challenge.bits.charAt(shown) === "1");
    }
    function setMet(met) {
      if (line.getAttribute("data-met") !== (met ? "1" : "0")) {
        line.innerHTML = met ? data.challenge.met : data.challenge.goal;  /* HTML escaped by the build */
        line.setAttribute("data-met", met ? "1" : "0");
      }
      if (mark) mark.textContent = met && !lineInView() ? data.challenge.mark : "";
    }
    /* a glide that follows the step (Show me's, a dock's) moves the line after it was judged:
       out of sight then, the mark is written. Undocked, never blanked by a scroll: a mark that
       came and went as the page moved would move the line under it, and the page with it; a
       docked bar keeps the mark's line, so there it follows the line both ways (h74r: 02's
       mark stood right over its met line, in view under the bar). */
    var markAsked = false;
    if (mark) window.addEventListener("scroll", function () {
      if (markAsked || line.getAttribute("data-met") !== "1") return;
      markAsked = true;
      requestAnimationFrame(function () {
        markAsked = false;
        var seen = lineInView();
        if (!seen) mark.textContent = data.challenge.mark;
        else if (root.classList.contains("emqsim-docked")) mark.textContent = "";
      });
    }, {passive: true});
    /* Play started: the plain goal, judged again where Play stops */
    function unjudge() {
      if (line && data.challenge) setMet(false);
    }
    /* the page scrolled down by `by` px, smoothly unless the reader's system asks for less motion */
    function glide(by) {
      if (Math.abs(by) < 1) return;
      var still = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
      window.scrollTo({top: window.scrollY + by, behavior: still ? "auto" : "smooth"});
    }

    /* The pictures of the frames one step either way on each control, asked for now so the
       next move shows at once; each asked for once. */
    var asked = {};
    function ahead(n) {
      var here = frames[n][2];
      for (var k = 0; k < controls.length; k++) {
        for (var d = -1; d <= 1; d += 2) {
          var p = here.slice();
          p[k] += d;
          var m = byKey[p.join(",")];
          if (m === undefined) continue;
          var name = picture(frames[m][0]);
          if (asked[name]) continue;
          asked[name] = true;
          new Image().src = name;
        }
      }
    }

    /* Each question: Check shows the feedback written for the option picked; Show me moves
       the figure to the frame that shows the answer. */
    function setupQuestions() {
      var boxes = root.querySelectorAll("fieldset.emqsim-question");
      for (var i = 0; i < boxes.length; i++) (function (set, q) {
        var out = set.querySelector(".emqsim-feedback");
        set.querySelector("button.emqsim-check").addEventListener("click", function () {
          var picked = set.querySelector("input[type=radio]:checked");
          if (!picked) {
            out.textContent = data.pick_first;
            out.removeAttribute("data-right");
            return;
          }
          out.innerHTML = q.feedback[picked.value];  /* HTML escaped by the build */
          out.setAttribute("data-right", picked.value === q.right ? "1" : "0");
          revealFeedback(out);
        });
        var showMe = set.querySelector("button.emqsim-show-me");
        if (showMe && q.show !== null) showMe.addEventListener("click", function () {
          cur = frames[q.show][2].slice();
          release();
          show();
          intoView();
          /* the rows out from under a sticky stage (03's poll slider stayed under it) */
          if (isSticky()) reveal(box);
        });
      })(boxes[i], data.questions[i]);
    }

    /* the row of the figure's Play button, if it has one: where a reader steps it */
    function playRow() {
      var b = box.querySelector("button.emqsim-play");
      return b ? b.closest(".emqsim-control") : null;
    }

    function moveTo(k, position) {
      cur[k] = position;
      settle(k);
      show();
    }

    controls.forEach(function (c, k) {
      var row = make("div", {"class": "emqsim-control", "data-name": c.name, "data-kind": c.kind});
      var id = "emqsim-" + Math.random().toString(36).slice(2) + "-" + c.name;
      row.appendChild(make("label", {"for": id, "class": "emqsim-label"}, c.label));
      var held = c.held ? " (held at its default on this page)" : "";
      if (c.kind === "slider") {
        var range = make("input", {type: "range", id: id, min: "0", step: "1", "class": "emqsim-slider",
                                   "data-name": c.name});
        var value = make("output", {"for": id, "class": "emqsim-value"});
        range.disabled = !!c.held;
        if (c.held) range.title = c.label + held;
        range.addEventListener("input", function () {
          var list = avail(k);
          moveTo(k, list[Number(range.value)]);
          dock(row);
        });
        reserved.push([value, c.positions.map(function (pos) { return pos[0]; })]);
        var player = null;
        if (c.play && !c.held) player = makePlay(c, k, range, row);
        row.appendChild(range);
        row.appendChild(value);
        if (player) row.appendChild(player);
        ui.push({sync: function () {
          var list = avail(k), at = list.indexOf(cur[k]);
          if (c.span) {  /* held: where its one value sits among all the slider's positions */
            range.max = String(c.span[1] - 1);
            range.value = String(c.span[0]);
          } else {
            range.max = String(list.length - 1);
            range.value = String(at);
          }
          var label = c.positions[cur[k]][0];
          value.textContent = label;
          range.setAttribute("aria-valuetext", label);
        }});
      } else {
        var select = make("select", {id: id, "class": "emqsim-choice", "data-name": c.name});
        select.disabled = !!c.held;
        if (c.held) select.title = c.label + held;
        /* as a slider's step: 02's design changed on a phone left the picture's top at -304 px.
           The choice made, the reader steps or plays next: the figure docks with its Play row
           in use beside the drop-down, both kept by a crowded bar (02's and 03's keys showed
           the design alone, their step slider 150 px below the window: h73r). */
        select.addEventListener("change", function () { moveTo(k, Number(select.value)); dock(row, playRow()); });
        row.appendChild(select);
        ui.push({sync: function () {
          var list = avail(k), have = [];
          for (var i = 0; i < select.options.length; i++) have.push(Number(select.options[i].value));
          if (have.join(",") !== list.join(",")) {
            while (select.firstChild) select.removeChild(select.firstChild);
            list.forEach(function (p) {
              select.appendChild(make("option", {value: String(p)}, c.positions[p][0]));
            });
          }
          select.value = String(cur[k]);
        }});
      }
      /* held: disabled, its tooltip says so; the paragraph under the controls names it, once */
      if (c.held) row.setAttribute("data-held", "1");
      box.appendChild(row);
    });
    if (mark) box.appendChild(mark);   /* under the rows */

    /* A Play button and its speed for slider k: each tick moves it `speed` positions on, and
       it stops at the end (pressed there, it starts again from the first position). */
    function makePlay(c, k, range, row) {
      var wrap = make("span", {"class": "emqsim-playbox"});
      /* The button keeps the width of its wider word: both words stand in one grid cell, hidden
         from sight and from screen readers, under the one shown; "pause" replacing "play" would
         otherwise push the slider beside it sideways on a phone. */
      var button = make("button", {type: "button", "class": "emqsim-play"});
      var said = make("span", {}, "\u25B6 play");
      button.appendChild(said);
      ["\u25B6 play", "\u275A\u275A pause"].forEach(function (word) {
        button.appendChild(make("span", {"class": "emqsim-room", "aria-hidden": "true"}, word));
      });
      var sid = "emqsim-speed-" + Math.random().toString(36).slice(2);
      var speed = make("input", {type: "range", id: sid, min: "1", max: String(c.play.max_step), step: "1",
                                 value: String(c.play.step), "class": "emqsim-speed"});
      var speedOut = make("output", {"for": sid}, String(c.play.step));
      speed.addEventListener("input", function () { speedOut.textContent = speed.value; });
      var timer = null;
      function stop() {
        if (timer !== null) clearInterval(timer);
        timer = null;
        said.textContent = "\u25B6 play";
        root.removeAttribute("data-playing");
        judge();   /* where Play stopped is where the reader stopped */
      }
      function tick() {
        var list = avail(k), at = list.indexOf(cur[k]);
        if (at >= list.length - 1) { stop(); return; }
        moveTo(k, list[Math.min(at + Number(speed.value), list.length - 1)]);
        if (list.indexOf(cur[k]) >= list.length - 1) stop();
      }
      button.addEventListener("click", function () {
        if (timer !== null) { stop(); return; }
        var list = avail(k), again = list.indexOf(cur[k]) >= list.length - 1;
        if (again) moveTo(k, list[0]);
        timer = setInterval(tick, c.play.interval);
        dock(row);
        said.textContent = "\u275A\u275A pause";
        root.setAttribute("data-playing", "1");
        unjudge();
        /* the first step at once, unless Play went back to the first frame (that is the step):
           the step figures' 2 s a call left the press unanswered for 2 s */
        if (!again) tick();
      });
      row.insertBefore(button, row.firstChild);
      wrap.appendChild(make("label", {"for": sid, "class": "emqsim-label"}, c.play.label));
      wrap.appendChild(speed);
      wrap.appendChild(speedOut);
      return wrap;
    }

    /* The bottom of the theme's headers that stay at the top of the window (0 if none does):
       what a picture brought into view must land under. */
    function headerBottom() {
      var bottom = 0, heads = document.querySelectorAll(".bd-header, .bd-header-article");
      for (var i = 0; i < heads.length; i++) {
        var pos = getComputedStyle(heads[i]).position;
        if (pos === "sticky" || pos === "fixed") bottom = Math.max(bottom, heads[i].getBoundingClientRect().bottom);
      }
      return Math.max(0, bottom);
    }

    /* Show me moved the figure: bring its picture into view if any of it is out of sight (the
       reader pressed the button below it), smoothly unless the reader's system asks for less
       motion. The readout, a polite live region, says the new frame. Measured after the stage
       is fitted again (margins): on 02 a phone's sticky stage seen in view turned too tall for
       the new frame's readout once its picture loaded, went back to its place in the page
       and took the picture above the window. */
    function intoView() {
      margins();
      var r = img.getBoundingClientRect(), top = headerBottom();
      glide(r.top >= top && r.bottom <= window.innerHeight ? 0 : r.top - top - 8);
    }

    /* A stage too tall to stick (emqsim-tall: 05's lanes, 02's keys on a phone) scrolls with the
       page, so Play, or a step of a slider, under it changed the lanes out of sight. The reader
       who moves such a figure gets it docked: its control rows stick to the window's bottom
       (player.css) and the picture's top is brought under the header, so the picture and the
       control in use are seen together while it plays. The readout docks with them, above the
       rows: left under the picture, the docked rows covered its last lines (05's forbid line,
       02's reply). It keeps the height of its tallest text where the window has room for it
       under the whole picture, else it is cut to whole lines and scrolls inside itself: a
       readout of at least 4 lines sat over the last 45 px of 02's keys and 05's line-style key.
       Undocked once the player leaves the window: a docked row would otherwise ride over the
       page above the player; and undocked, Play not running, when the reader scrolls the page
       (readerScrolls): one who stopped Play and went back up to the text saw the docked bar
       over the picture (02's first figure: the bar at 686-844 px over a picture at 510-838). */
    var PICTURE_GAP = 4;    /* px between the header and the docked picture's top */
    var docked = window.IntersectionObserver ? new IntersectionObserver(function (entries) {
      entries.forEach(function (e) { if (!e.isIntersecting) undock(); });
    }) : null;
    function undock() {
      if (!root.classList.contains("emqsim-docked")) return;
      root.classList.remove("emqsim-docked");
      if (readout.parentNode !== readoutRoom) {
        readoutRoom.appendChild(readout);
        readout.style.height = readout.style.marginBottom = "";
        readout.removeAttribute("tabindex");
      }
    }
    /* The docked readout's height (dockHeight, its box and the blank under it, fitDocked): its
       tallest text's, so every frame's text is read whole while Play runs, nothing scrolled inside
       the box, and the rows under it keep their place (05's run showed 139 px of its 194 px of
       text at 390x844 and scrolled). Where the window has no room for it under the whole
       picture, the box takes the whole lines left (1 at least) and the rest
       scrolls inside it: the picture is never drawn narrower than it stands at rest (drawn at
       0.8 of its width for the readout, its smallest text painted 8 CSS px, under the course's
       10). Docked, the box has no padding under its text (player.css): a padding there showed
       the top of the next line, cut, under the last whole one (02's keys, 05's run). True if whole. */
    function readoutHeight() {
      readout.style.marginBottom = "";    /* the blank under a short text is no row */
      var rows = box.getBoundingClientRect().height - readout.getBoundingClientRect().height;
      var s = getComputedStyle(readout);
      var line = parseFloat(s.lineHeight) || 14;
      var pad = parseFloat(s.paddingTop) + parseFloat(s.paddingBottom) +
                parseFloat(s.borderTopWidth) + parseFloat(s.borderBottomWidth) +
                parseFloat(s.marginTop) + parseFloat(s.marginBottom);
      var picture = img.getBoundingClientRect();
      var room = window.innerHeight - headerBottom() - PICTURE_GAP - rows - picture.height;
      var text = tallestLines || Math.round(readout.scrollHeight / line);
      var lines = Math.floor((room - pad) / line + 1e-6);
      var edge = pad - parseFloat(s.marginTop) - parseFloat(s.marginBottom);
      dockHeight = edge + Math.max(1, Math.min(lines, text)) * line;
      fitDocked();
      return lines >= text;
    }
    /* The docked box at each frame: as tall as its text, the rest of dockHeight blank under it,
       so the rows under it keep their place; a text taller than dockHeight scrolls inside a box
       of that height. A box of dockHeight showed 02's keys' and 05's pile-up's short texts with
       6 empty lines under them (82 px), 06's with 4 (issue 30, h68r). */
    function fitDocked() {
      if (!dockHeight || readout.parentNode === readoutRoom) return;
      readout.style.height = readout.style.marginBottom = "";
      var text = readout.getBoundingClientRect().height;
      if (text >= dockHeight - 0.5) readout.style.height = dockHeight + "px";
      else readout.style.marginBottom = (dockHeight - text) + "px";
    }
    /* The reader scrolls the page (a wheel, a touch, a key that scrolls), Play not running: the
       figure undocks, and what is under the reader's eye (the middle of the window; the picture
       where the docked rows stood there) stays where it was: the readout gone back under the
       picture would otherwise move the page below it. The player's own scrollTo fires none of
       these. A wheel or touch on the readout scrolls the readout, a key on a control moves it:
       neither undocks. */
    var SCROLL_KEYS = {ArrowUp: 1, ArrowDown: 1, PageUp: 1, PageDown: 1, Home: 1, End: 1, " ": 1};
    function readerScrolls(ev) {
      if (!root.classList.contains("emqsim-docked") || root.hasAttribute("data-playing")) return;
      var t = ev.target;
      if (t && t.nodeType === 1) {
        if (readout.contains(t)) return;
        if (ev.type === "keydown") {
          if (!SCROLL_KEYS[ev.key] || ev.altKey || ev.ctrlKey || ev.metaKey) return;
          if (t.isContentEditable || /^(INPUT|SELECT|TEXTAREA)$/.test(t.tagName)) return;
          if (ev.key === " " && t.tagName === "BUTTON") return;
        } else if (/^(INPUT|SELECT)$/.test(t.tagName) && box.contains(t)) {
          return;
        }
      }
      var eye = document.elementFromPoint(window.innerWidth / 2, window.innerHeight / 2);
      if (!eye || box.contains(eye)) eye = img;
      var at = eye.getBoundingClientRect().top;
      undock();
      var by = eye.getBoundingClientRect().top - at;
      if (Math.abs(by) >= 1) window.scrollBy({top: by, behavior: "instant"});
    }
    ["wheel", "touchmove", "keydown"].forEach(function (type) {
      window.addEventListener(type, readerScrolls, {passive: true, capture: true});
    });
    /* Play, a step of a slider or a drop-down's change: the reader looks at the picture. A figure that cannot dock
       (a wide window, a stage that sticks) is brought into view as Show me brings it: on a
       desktop Play pressed under 05's lanes changed them above the window for the whole run.
       Docked, the picture's top goes under the header, or higher where its bottom would
       otherwise be under the docked rows: they never cover it. */
    function dock(row, also) {
      if (!root.classList.contains("emqsim-tall") || !docked) {
        intoView();
        if (isSticky()) reveal(row);   /* the row in use out from under the stage, as on focus */
        return;
      }
      /* docked with every row; where the readout is then cut (02's keys read 2 lines), all but
         the row in use and `also` (a drop-down's Play row) hide (player.css): hidden always,
         06's three controls undocked it before each */
      [].forEach.call(box.children, function (e) { e.toggleAttribute("data-using", e === row || e === also); });
      root.removeAttribute("data-crowded");
      if (!root.classList.contains("emqsim-docked")) {
        root.classList.add("emqsim-docked");
        box.insertBefore(readout, box.firstChild);
        /* docked, it may scroll inside itself: a keyboard reader can focus it and scroll it
           (axe's scrollable-region-focusable) */
        readout.tabIndex = 0;
        docked.observe(root);
      }
      if (!readoutHeight()) { root.setAttribute("data-crowded", ""); readoutHeight(); }
      var r = img.getBoundingClientRect(), top = headerBottom();
      var rows = window.innerHeight - box.getBoundingClientRect().height;   /* where the docked rows begin */
      glide(r.top >= top && r.bottom <= rows ? 0 : Math.max(r.top - top - PICTURE_GAP, r.bottom - rows));
    }

    /* Where the stage sticks (a narrow screen), a control the keyboard or a link brings
       into view must land below it, not under it. */
    var stage = root.querySelector(".emqsim-stage");
    /* A stage taller than STAGE_SHARE of the window would cover the questions and controls it
       sticks over (04's took 690 px of a phone's 844): such a stage scrolls with the page. */
    var STAGE_SHARE = 0.45;
    function fit() {
      if (!stage) return;
      root.classList.remove("emqsim-tall");
      if (getComputedStyle(stage).position !== "sticky") {   /* a wide window: nothing docks */
        if (root.classList.contains("emqsim-docked")) undock();
        return;
      }
      /* a docked figure stays tall until it is undocked: its readout gone from the stage (to
         the controls) made 02's first figure's stage a few px short of the share, which undocked
         it at its next picture and moved its control rows */
      /* as tall as it is once held, so a stage that sticks at rest sticks while Play runs */
      var grow = held ? 0 : Math.max(0, roomHeight - readoutRoom.offsetHeight);
      if (root.classList.contains("emqsim-docked") || stage.offsetHeight + grow > STAGE_SHARE * window.innerHeight)
        root.classList.add("emqsim-tall");
    }
    function isSticky() { return !!stage && getComputedStyle(stage).position === "sticky"; }
    /* the top of what the reader sees clear: under a sticky stage, else under the header */
    function clearTop() { return isSticky() ? Math.max(stage.getBoundingClientRect().bottom, 0) : headerBottom(); }
    /* The element the reader is using, moved out from under the sticky stage (and up from
       below the window's bottom): focus by the keyboard, a feedback line just written. */
    function reveal(e) {
      /* a stage that reaches the end of its player moves up with the page: measured again after
         each step, a few steps at most */
      for (var i = 0; i < 4; i++) {
        var r = e.getBoundingClientRect();
        var edge = clearTop();
        var under = edge + 8;
        /* moved only if something of it is hidden, so 8 px clear where it moves: a row 6 px under
           a stage that rides up with the page (01's, at the end of its player) was moved 8 px
           at each step of the slider, and the stage with it, 503 px in one sweep */
        var by = r.top < edge - 0.5 ? r.top - under
               : r.bottom > window.innerHeight ? Math.min(r.bottom - window.innerHeight + 8, Math.max(0, r.top - under)) : 0;
        if (Math.abs(by) < 1) return;
        window.scrollBy({top: by, behavior: "instant"});
      }
    }
    /* a control's whole row, its label with it: Play focused left 02's "time" label under the
       stage by 8 px. Not a focus that a press gives: what the finger is on is in view, and a page
       moved between the press and its release loses the click (Play pressed in the window's
       last 45 px scrolled its row into view and did not start) */
    var pressing = false;
    root.addEventListener("pointerdown", function () { pressing = true; }, true);
    ["pointerup", "pointercancel"].forEach(function (type) {
      window.addEventListener(type, function () { setTimeout(function () { pressing = false; }, 0); }, true);
    });
    root.addEventListener("focusin", function (ev) {
      if (pressing || stage.contains(ev.target)) return;
      reveal(ev.target.closest(".emqsim-control") || ev.target);
    });
    /* the feedback just written, with its question where both fit under the stage: on a phone
       01's Q2 feedback came into view with the question's first line under the picture */
    revealFeedback = function (out) {
      var set = out.closest("fieldset");
      var fits = set && set.getBoundingClientRect().height <= window.innerHeight - clearTop() - 16;
      reveal(fits ? set : out);
    };
    /* The readout above the controls, and a slider's value beside Play, as tall as the tallest
       text each shows (a value that keeps its own width, as wide as its widest): while Play ran, a longer readout pushed the control row down (by up to
       90 px on a phone) and a value wrapping to two lines moved Play, and a stage sticky for
       one frame stopped sticking for the next. Measured in a hidden copy of the same width,
       again whenever the player's width changes. */
    var reservedWidth = -1;
    function reserve() {
      var width = root.clientWidth;
      if (width === reservedWidth) return;
      reservedWidth = width;
      reserved.forEach(function (pair) {
        var e = pair[0], hold = pair[2] || e;
        e.style.minHeight = e.style.minWidth = hold.style.minHeight = "";
        var w = e.getBoundingClientRect().width;
        if (!w) return;
        var copy = e.cloneNode(false);
        ["id", "aria-live", "for"].forEach(function (a) { copy.removeAttribute(a); });
        copy.setAttribute("aria-hidden", "true");
        copy.style.cssText = "position:absolute;visibility:hidden;left:0;top:0;min-height:0;box-sizing:border-box;" +
                             "flex:none;width:" + w + "px";
        e.parentNode.appendChild(copy);
        var tallest = 0, cs = getComputedStyle(copy);
        pair[1].forEach(function (t) {
          copy.textContent = t;
          tallest = Math.max(tallest, copy.getBoundingClientRect().height);
        });
        var copyEdge = parseFloat(cs.paddingTop) + parseFloat(cs.paddingBottom) +
                       parseFloat(cs.borderTopWidth) + parseFloat(cs.borderBottomWidth);
        var copyLine = parseFloat(cs.lineHeight) || 14;
        /* where a value keeps its own width (flex: none, on one line), as wide as its widest
           text: "09:00 register" after "09:12 take" moved the slider's end by 55 px */
        var widest = 0;
        if (e.tagName === "OUTPUT" && getComputedStyle(e).flexBasis === "auto") {
          copy.style.width = "auto";
          copy.style.whiteSpace = "nowrap";
          pair[1].forEach(function (t) {
            copy.textContent = t;
            widest = Math.max(widest, copy.getBoundingClientRect().width);
          });
        }
        e.parentNode.removeChild(copy);
        if (hold !== e) {     /* the readout: its room holds the tallest box and its margins */
          var s = getComputedStyle(e);
          tallestLines = Math.round((tallest - copyEdge) / copyLine);
          roomHeight = Math.ceil(tallest + parseFloat(s.marginTop) + parseFloat(s.marginBottom));
          hold.style.minHeight = held ? roomHeight + "px" : "";
          return;
        }
        e.style.boxSizing = "border-box";
        e.style.minHeight = Math.ceil(tallest) + "px";
        e.style.minWidth = widest ? Math.ceil(widest) + "px" : "";
      });
    }
    /* The reader takes a control in hand (a press, a touch, the keyboard's focus): the readout's
       room takes its tallest text's height before the first move, so nothing under it moves
       while Play runs or the slider is dragged. The page scrolls by what the room grew, so the
       control under the reader's finger stays where it was (a button that moved from under the
       pointer between its press and its release would not be clicked); the picture goes up by
       as much. At rest (the page opened, Show me) the box sits under the picture with no blank
       above it. */
    function hold(ev) {
      if (held) return;
      var at = ev.target.getBoundingClientRect().top;
      held = true;
      readoutRoom.style.minHeight = roomHeight ? roomHeight + "px" : "";
      margins();
      var by = ev.target.getBoundingClientRect().top - at;
      if (Math.abs(by) >= 1) window.scrollBy({top: by, behavior: "instant"});
    }
    /* Show me, Play not running: the room fits the text again */
    function release() {
      if (!held || root.hasAttribute("data-playing")) return;
      held = false;
      readoutRoom.style.minHeight = "";
    }
    box.addEventListener("pointerdown", hold);
    box.addEventListener("focusin", hold);
    function margins() {
      reserve();
      fit();
      var sticky = isSticky();
      var top = sticky ? (stage.offsetHeight + (parseFloat(getComputedStyle(stage).top) || 0) + 8) + "px" : "";
      var rows = root.querySelectorAll(".emqsim-control, fieldset.emqsim-question, p.emqsim-challenge");
      for (var i = 0; i < rows.length; i++) rows[i].style.scrollMarginTop = top;
    }
    window.addEventListener("resize", margins);
    img.addEventListener("load", margins);

    if (data.questions) setupQuestions();
    show();
    margins();
    root.setAttribute("data-ready", "1");
  }

  /* Loaded async in the head: each player is set up once its element is parsed, not after
     the rest of the page, the theme's deferred scripts or its stylesheets. */
  function start(all) {
    var roots = document.querySelectorAll(".emqsim-player:not([data-ready])");
    for (var i = 0; i < roots.length; i++) {
      /* while the page still arrives, a player whose last part (its note) is not yet parsed waits */
      if (all || roots[i].querySelector("p.emqsim-about")) setup(roots[i]);
    }
  }
  if (document.readyState === "loading") {
    /* a player works as soon as it has arrived, before the rest of a long page */
    var watch = new MutationObserver(function () { start(false); });
    watch.observe(document.documentElement, {childList: true, subtree: true});
    document.addEventListener("readystatechange", function once() {
      document.removeEventListener("readystatechange", once);
      watch.disconnect();
      start(true);
    });
    start(false);
  } else {
    start(true);
  }
})();
