// The new-interview form: when a card's variant or inputs change, the server says what that
// scenario is, row by row with where each figure comes from (or why it is not possible), and the
// card's summary line says it too. Without this script, "Show what each chosen scenario changes"
// draws the same from the form.
(function () {
  "use strict";
  var form = document.querySelector("form.new-interview");
  if (!form) return;
  var url = form.dataset.preview;
  var csrf = document.querySelector('meta[name="csrf-token"]').content;
  var timers = {};

  // The card's scenario as its fields hold it: variant.<card> and input.<card>.<name>.
  function scenarioOf(details) {
    var card = details.dataset.scenarioCard;
    var scenario = {};
    details.querySelectorAll("select, input").forEach(function (field) {
      if (!field.name || !field.value.trim()) return;
      if (field.name === "variant." + card) scenario.variant = field.value;
      else if (field.name.indexOf("input." + card + ".") === 0) {
        scenario[field.name.slice(("input." + card + ".").length)] = field.value.trim();
      }
    });
    return { card: card, scenario: scenario };
  }

  function preview(details) {
    fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrf },
      body: JSON.stringify(scenarioOf(details))
    }).then(function (response) { return response.json(); }).then(function (data) {
      if (!data || data.html === undefined) return;
      details.querySelector("[data-scenario-summary]").textContent = data.summary;
      details.querySelector("[data-scenario-preview]").innerHTML = data.html; // the server's rendering
    }, function () {});
  }

  form.addEventListener("input", changed);
  form.addEventListener("change", changed);
  function changed(event) {
    var details = event.target.closest("details[data-scenario-card]");
    if (!details) return;
    var card = details.dataset.scenarioCard;
    clearTimeout(timers[card]);
    timers[card] = setTimeout(function () { preview(details); }, 300);
  }
})();
