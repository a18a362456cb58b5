// stoker's dashboard: the little script its pages need, no build step.
// 1. A form's fields say what is wrong at the field (a constraint's description).
// 2. A stack's page follows the stack: it polls the stack's state, recolours the
//    topology's nodes and swaps in the parts that changed, without a reload.
// 3. "Reveal" shows one sensitive output in place.
"use strict";

(function () {
  function errorOf(field) {
    return field.id ? document.getElementById(field.id + "-error") : null;
  }

  function showError(field, text) {
    var holder = errorOf(field);
    if (holder) holder.textContent = text;
    if (text) field.setAttribute("aria-invalid", "true");
    else field.removeAttribute("aria-invalid");
  }

  document.querySelectorAll("form[data-checked], #read-form").forEach(function (form) {
    var first = true;
    form.addEventListener("invalid", function (event) {
      var field = event.target;
      event.preventDefault(); // the message goes at the field, not in a bubble
      showError(field, field.dataset.message || field.validationMessage);
      if (first) { field.focus(); first = false; }
    }, true);
    form.addEventListener("submit", function () { first = true; });
    form.addEventListener("input", function (event) {
      var field = event.target;
      if (field.checkValidity && field.checkValidity()) showError(field, "");
    });
  });

  // ------------------------------------------------------------ the launch's preview
  // Sent in the background, so the form keeps what was typed (a hidden parameter's
  // value is never written back into a page); without this script the server's own
  // page answers the same.
  var launch = document.getElementById("launch-form");
  if (launch) {
    launch.addEventListener("submit", function (event) {
      var button = event.submitter;
      if (!button || button.value !== "preview" || !window.fetch || !window.DOMParser) return;
      event.preventDefault();
      var data = new FormData(launch);
      data.set("step", "preview");
      fetch(launch.action, { method: "POST", body: data, credentials: "same-origin" })
        .then(function (response) { return response.text(); })
        .then(function (html) {
          var page = new DOMParser().parseFromString(html, "text/html");
          launch.querySelectorAll(".field-error").forEach(function (holder) {
            var answer = page.getElementById(holder.id);
            var field = document.getElementById(holder.id.replace(/-error$/, ""));
            if (field) showError(field, answer ? answer.textContent : "");
          });
          var result = page.getElementById("launch-result");
          if (result) document.getElementById("launch-result").innerHTML = result.innerHTML;
          else launch.submit();  // not the form's page: let the server's page answer
          var invalid = launch.querySelector("[aria-invalid=true]");
          if (invalid) invalid.focus();
        })
        .catch(function () { launch.submit(); });
    });
  }

  // ------------------------------------------------------------ reveal an output
  document.addEventListener("click", function (event) {
    var link = event.target.closest ? event.target.closest("a[data-reveal]") : null;
    if (!link) return;
    event.preventDefault();
    fetch(link.href + "?part=1", { credentials: "same-origin", cache: "no-store" })
      .then(function (response) { return response.ok ? response.text() : Promise.reject(response.status); })
      .then(function (html) { link.parentNode.innerHTML = html; })
      .catch(function () { window.location.href = link.href; });
  });

  // ------------------------------------------------------------ follow a stack
  var stack = document.getElementById("stack");
  if (!stack) return;
  var busy = false;

  function setState(node, state) {
    var keep = node.getAttribute("class").split(/\s+/).filter(function (c) {
      return c && c.indexOf("status-") !== 0 && c.indexOf("action-") !== 0;
    });
    if (state) {
      var status = /_IN_PROGRESS$/.test(state) ? "IN_PROGRESS" : state.slice(state.lastIndexOf("_") + 1);
      var action = state.slice(0, state.length - status.length - 1);
      keep.push("status-" + status.toLowerCase().replace(/_/g, "-"));
      keep.push("action-" + action.toLowerCase().replace(/_/g, "-"));
    } else {
      keep.push("status-none");
    }
    node.setAttribute("class", keep.join(" "));
    node.setAttribute("data-state", state || "");
  }

  function load(part) {
    return fetch(stack.dataset.parts + part, { credentials: "same-origin", cache: "no-store" })
      .then(function (response) { return response.ok ? response.text() : null; });
  }

  // The parts are fetched together and put in place together, so the page never shows
  // the stack's new status beside its resources' old states.
  function swap(parts) {
    return Promise.all(parts.map(load)).then(function (pages) {
      pages.forEach(function (html, i) {
        if (html !== null) document.getElementById("part-" + parts[i]).innerHTML = html;
      });
    });
  }

  function poll() {
    if (busy) return;
    busy = true;
    fetch(stack.dataset.live, { credentials: "same-origin", cache: "no-store" })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (live) {
        if (!live) return null;
        var redraw = false;
        Object.keys(live.nodes).forEach(function (id) {
          var node = document.getElementById(id);
          if (!node) redraw = true;
          else if (node.getAttribute("data-state") !== live.nodes[id]) setState(node, live.nodes[id]);
        });
        var deleted = live.deleted ? "yes" : "no";
        var changed = String(live.last_event) !== stack.dataset.lastEvent ||
          live.status !== stack.dataset.status || deleted !== stack.dataset.deleted;
        stack.dataset.lastEvent = String(live.last_event);
        stack.dataset.status = live.status;
        stack.dataset.deleted = deleted;
        var parts = changed ? ["summary", "resources", "events", "outputs"] : [];
        if (redraw) parts.push("topology");
        return swap(parts);
      })
      .catch(function () { /* the server is away for a moment: the next poll tries again */ })
      .then(function () {
        busy = false;
        var inProgress = /_IN_PROGRESS$/.test(stack.dataset.status);
        window.setTimeout(poll, inProgress ? 1000 : 4000);
      });
  }

  window.setTimeout(poll, 1000);
})();
