// Known bug: the Add button has no handler (it does nothing); Clear works.
const list = document.getElementById('list');
const count = document.getElementById('count');
document.getElementById('clear').addEventListener('click', () => {
  list.innerHTML = '';
  count.textContent = '0 items';
});
