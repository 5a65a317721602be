"""The ranked selection: which memories a query brings into a prompt, under a budget."""

from __future__ import annotations

import json
import random

import pytest

from conftest import memory, write_agent, write_lines
from gamemaster.retrieval import Query, recall
from gamemaster.retrieval.index import SearchIndex


def world(workspace, **fields):
    data = json.loads(workspace.world_path.read_text(encoding="utf-8"))
    data.update(fields)
    workspace.world_path.write_text(json.dumps(data), encoding="utf-8")


def filler(n: int) -> str:
    topics = ["Kaffee", "Regen", "Zugfahrt", "Mittagessen", "Drucker", "Playlist", "Meeting-Raum", "Fahrrad"]
    return f"Ana hat heute wieder über {topics[n % len(topics)]} und die Woche geredet, wie immer ({n})."


def studio(workspace, rows):
    write_agent(workspace, "ana", name="Ana")
    write_lines(workspace, "ana", rows)
    return workspace


def by_id(selection):
    return {p.memory.id: p for p in selection.picked}


def relevant_ids(selection):
    return [p.memory.id for p in selection.picked if p.section == "relevant"]


def test_a_fact_far_back_is_found_by_a_paraphrase(empty_workspace):
    rows = [memory("ana", n, description=filler(n), created=f"day-{1 + n // 15:03d}/scene-01") for n in range(1, 2001)]
    rows[99] = memory("ana", 100, description="Ana hat ihrer Katze den Namen Minka gegeben.", created="day-007/scene-01")
    studio(empty_workspace, rows)
    selection = recall(empty_workspace, "ana", "Wie heißt Anas Katze?", budget=4000)
    assert "ana-100" in relevant_ids(selection)
    assert by_id(selection)["ana-100"].matched == ("katze",)
    assert selection.chars <= 4000


def test_names_alone_add_nothing(empty_workspace):
    rows = [memory("ana", n, description=filler(n)) for n in range(1, 300)]
    studio(empty_workspace, rows)
    selection = recall(empty_workspace, "ana", "Ana")
    assert all(not p.matched for p in selection.picked)
    # and with a real word next to the name, only that word counts
    selection = recall(empty_workspace, "ana", "Ana Drucker")
    hits = [p for p in selection.picked if p.matched]
    assert hits and all(p.matched == ("drucker",) for p in hits)


def test_common_words_do_not_decide(empty_workspace):
    rows = [memory("ana", n, description=f"Where would Ana go, does anyone know? Day {n}.") for n in range(1, 400)]
    rows[10] = memory("ana", 11, description="Ana keeps the blue key under the flower pot by the studio door.")
    studio(empty_workspace, rows)
    world(empty_workspace, language="en")
    selection = recall(empty_workspace, "ana", "Where does Ana keep the key?", budget=2000)
    scored = sorted((p for p in selection.picked if p.section == "relevant"), key=lambda p: -(p.score or 0))
    assert scored[0].memory.id == "ana-011"
    assert scored[0].matched == ("keep", "key")


def test_a_rare_tag_hit_ranks_above_shared_words(empty_workspace):
    rows = [memory("ana", n, description=filler(n)) for n in range(1, 200)]
    rows[5] = memory("ana", 6, description="Skizzen vom Turm verworfen.", tags=["bone-towers"], importance=2)
    rows[150] = memory("ana", 151, description="Bone towers are tall, the towers of bone.", importance=9)
    studio(empty_workspace, rows)
    selection = recall(empty_workspace, "ana", Query(text="bone towers", tags=("bone-towers",)))
    chosen = relevant_ids(selection)  # in the order they were chosen
    assert chosen.index("ana-006") < chosen.index("ana-151")
    assert by_id(selection)["ana-006"].matched[0] == "#bone-towers"
    # ahead by the tag, which counts like a rare word: the other memory has the better importance
    assert by_id(selection)["ana-151"].memory.importance > by_id(selection)["ana-006"].memory.importance


def test_a_query_naming_a_tag_in_words_counts_as_a_tag_hit(empty_workspace):
    rows = [memory("ana", n, description=filler(n)) for n in range(1, 200)]
    rows[5] = memory("ana", 6, description="Skizzen verworfen.", tags=["bone-towers"])
    studio(empty_workspace, rows)
    assert "ana-006" in relevant_ids(recall(empty_workspace, "ana", "bone towers"))


def test_a_hit_brings_its_neighbours_from_the_same_scene(empty_workspace):
    rows = [memory("ana", n, description=filler(n), created=f"day-001/scene-{n:02d}") for n in range(1, 80)]
    rows[29] = memory("ana", 30, description="Ben: Wie heißt eigentlich deine Katze?", created="day-001/scene-30")
    rows[30] = memory("ana", 31, description="Ana: Sie heißt Minka, nach einem alten Comic.", created="day-001/scene-30")
    rows[28] = memory("ana", 29, description="Ben: Schönes Wetter heute.", created="day-001/scene-29")
    studio(empty_workspace, rows)
    selection = recall(empty_workspace, "ana", "Katze", budget=3000)
    picked = by_id(selection)
    assert picked["ana-030"].matched == ("katze",)
    assert picked["ana-031"].neighbour_of == "ana-030"
    assert "ana-029" not in picked or picked["ana-029"].neighbour_of is None  # another scene


def test_umlauts_and_their_ascii_spellings_meet(empty_workspace):
    rows = [memory("ana", n, description=filler(n)) for n in range(1, 100)]
    rows[3] = memory("ana", 4, description="Die Straße zu den Türmen ist gesperrt.")
    studio(empty_workspace, rows)
    selection = recall(empty_workspace, "ana", "strasse tuerme")
    assert set(by_id(selection)["ana-004"].matched) == {"strasse", "tuerme"}


@pytest.mark.parametrize("budget", [500, 1200, 3000])
def test_the_budget_is_never_exceeded_and_an_oversized_line_is_skipped(empty_workspace, budget):
    rows = [memory("ana", n, description=filler(n)) for n in range(1, 300)]
    rows[50] = memory("ana", 51, description="Katze " + "sehr lang " * 400)
    rows[60] = memory("ana", 61, description="Die Katze schläft.")
    studio(empty_workspace, rows)
    selection = recall(empty_workspace, "ana", "Katze", budget=budget)
    assert selection.chars <= budget
    assert "ana-051" not in by_id(selection)
    assert "ana-061" in relevant_ids(selection)
    recent = [p for p in selection.picked if p.section == "recent"]
    assert sum(p.chars("de") for p in recent) <= budget // 4
    assert len({p.memory.id for p in selection.picked}) == len(selection.picked)


def varied(n: int) -> str:
    """Filler that is no near-duplicate of other filler: six words of forty, by ``n``."""
    vocabulary = ("Kaffee Regen Zugfahrt Mittagessen Drucker Playlist Fahrrad Fenster Balkon Kantine Hof Bus "
                  "Wetter Katze Urlaub Miete Konzert Park Markt Kino See Bibliothek Museum Schwimmbad Garten "
                  "Küche Keller Dach Treppe Aufzug Schrank Regal Lampe Teppich Sofa Tisch Stuhl Bild Uhr Spiegel").split()
    return "Notiz: " + ", ".join(random.Random(n).sample(vocabulary, 6)) + "."


def test_reflections_compete_the_newest_always_makes_it(empty_workspace):
    rows = []
    for n in range(1, 1201):
        if n % 10 == 0:
            text = "Türme brauchen eine Biologie." if n == 100 else f"Eine Einsicht über den Alltag Nummer {n}."
            rows.append(memory("ana", n, type="reflection", depth=1, evidence=[f"ana-{n - 1:03d}"], description=text))
        else:
            rows.append(memory("ana", n, description=varied(n)))
    studio(empty_workspace, rows)
    selection = recall(empty_workspace, "ana", "Biologie der Türme")
    picked = by_id(selection)
    assert picked["ana-1200"].section == "reflections"
    assert picked["ana-100"].section == "relevant"
    reflections = [p for p in selection.picked if p.memory.type == "reflection"]
    assert len(reflections) < 20  # no longer all 120 of them
    assert selection.chars <= 10_000


def test_a_stream_edited_by_hand_is_read_as_it_is_now(empty_workspace):
    rows = [memory("ana", n, description=filler(n)) for n in range(1, 200)]
    rows[20] = memory("ana", 21, description="Die Katze heißt Minka.")
    path = studio(empty_workspace, rows).memories_dir / "ana.jsonl"
    assert "ana-021" in relevant_ids(recall(empty_workspace, "ana", "Minka"))
    # an edit in place: the old word is gone, a new one is there
    text = path.read_text(encoding="utf-8").replace("Die Katze heißt Minka.", "Der Hund heißt Bello.")
    path.write_text(text, encoding="utf-8")
    assert "ana-021" not in relevant_ids(recall(empty_workspace, "ana", "Minka"))
    assert "ana-021" in relevant_ids(recall(empty_workspace, "ana", "Bello"))
    # a line appended by hand is found too
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(memory("ana", 200, description="Das Passwort steht im Tresor.")) + "\n")
    assert "ana-200" in by_id(recall(empty_workspace, "ana", "Tresor"))


def test_the_tools_own_appends_extend_the_index_without_a_rebuild(gm, monkeypatch):
    from gamemaster.backends.offline import OfflineBackend
    from gamemaster.loop import run_scene

    run_scene(gm, OfflineBackend())  # builds every participant's index
    rebuilds = []
    original = SearchIndex._rebuild
    monkeypatch.setattr(SearchIndex, "_rebuild", lambda self, *a: rebuilds.append(self.path.name) or original(self, *a))
    for _ in range(3):
        run_scene(gm, OfflineBackend())
    assert rebuilds == []
    index = SearchIndex(gm.workspace.memories_dir / "vera.jsonl", gm.workspace.state / ".cache" / "vera.search.sqlite", "de")
    assert index.refresh().count() == gm.workspace.stream("vera").memory_count()


def test_an_empty_stream_recalls_nothing(empty_workspace):
    write_agent(empty_workspace, "ana")
    selection = recall(empty_workspace, "ana", "irgendwas")
    assert selection.picked == [] and selection.chars == 0


def test_a_damaged_index_file_is_rebuilt(empty_workspace):
    studio(empty_workspace, [memory("ana", n, description=filler(n)) for n in range(1, 50)])
    recall(empty_workspace, "ana", "Drucker")
    (empty_workspace.state / ".cache" / "ana.search.sqlite").write_bytes(b"not a database at all" * 100)
    # found again (in the newest memories or among the relevant ones: the same words are shown once)
    assert [p for p in recall(empty_workspace, "ana", "Drucker").picked if p.matched == ("drucker",)]


def test_the_world_chooses_the_strategy_and_an_unknown_one_is_named(empty_workspace):
    studio(empty_workspace, [memory("ana", n, description=filler(n)) for n in range(1, 80)])
    world(empty_workspace, selection="seed")
    assert recall(empty_workspace, "ana", "Drucker").strategy == "seed"
    world(empty_workspace, selection="nearest")
    with pytest.raises(Exception) as failure:
        recall(empty_workspace, "ana", "Drucker")
    assert "state/world.json: selection: unknown strategy 'nearest' (known: hybrid, ranked, seed)" in str(failure.value)


def test_a_german_genitive_finds_the_name(empty_workspace):
    rows = [memory("ana", n, description=filler(n)) for n in range(1, 300)]
    rows[40] = memory("ana", 41, description="Greta hat ihrer Katze den Namen Pixel gegeben.")
    rows[41] = memory("ana", 42, description="Die Katze der Nachbarin ist krank.")
    studio(empty_workspace, rows)
    selection = recall(empty_workspace, "ana", "Wie heißt Gretas Katze?", budget=2000)
    scored = sorted((p for p in selection.picked if p.matched), key=lambda p: -(p.score or 0))
    assert scored[0].memory.id == "ana-041"
    assert scored[0].matched == ("gretas", "katze")


def test_the_same_words_stored_again_are_chosen_once(empty_workspace):
    rows = [memory("ana", n, description=filler(n), created=f"day-{n:03d}/scene-01") for n in range(1, 300)]
    for n in range(100, 110):
        rows[n - 1] = memory("ana", n, description="Gretas Katze war beim Tierarzt.", created=f"day-{n:03d}/scene-01")
    rows[20] = memory("ana", 21, description="Greta nennt ihre Katze Pixel.", created="day-021/scene-01")
    studio(empty_workspace, rows)
    selection = recall(empty_workspace, "ana", "Gretas Katze", budget=1500)
    said = [p.memory.description for p in selection.picked if p.section == "relevant"]
    assert said.count("Gretas Katze war beim Tierarzt.") == 1
    assert "Greta nennt ihre Katze Pixel." in said


def test_a_rebuild_read_in_small_pieces_gives_the_same_index(empty_workspace, monkeypatch):
    import gamemaster.retrieval.pieces as pieces_module

    rows = [memory("ana", n, description=filler(n), tags=["alltag", f"t{n % 7}"],
                   created=f"day-{1 + n // 15:03d}/scene-{n % 9 + 1:02d}") for n in range(1, 3001)]
    for n in range(10, 3000, 97):
        rows[n].pop("created")  # undated lines inherit the scene before them, across pieces too
    rows[2500] = memory("ana", 2501, description="Die Katze heißt Minka.", tags=["katze"])
    studio(empty_workspace, rows)
    path = empty_workspace.state / ".cache" / "ana.search.sqlite"

    def build(piece_bytes):
        monkeypatch.setattr(pieces_module, "PIECE_BYTES", piece_bytes)
        path.unlink(missing_ok=True)
        index = SearchIndex(empty_workspace.memories_dir / "ana.jsonl", path, "de").refresh()
        try:
            docs = index.docs(range(1, 3002))
            return docs, index.search(["katz", "mittagess"], 50), index.tagged(["t3", "katze"], 50), index.count()
        finally:
            index.close()

    whole = build(10**9)
    pieces = build(1000)  # some 300 pieces, most lines cut by a piece boundary
    assert pieces == whole
    assert whole[3] == 3000 and whole[0][2501].mem_id == "ana-2501"


def test_a_hit_shown_elsewhere_in_the_prompt_still_brings_the_reply_beside_it(empty_workspace):
    from conftest import memory, write_agent, write_lines
    from gamemaster.retrieval import Query, Settings, get_strategy

    write_agent(empty_workspace, "ana")
    rows = [memory("ana", 1, created="day-001/scene-02", importance=2,
                   description="Darius: Wo liegt der Schlüssel zur alten Gießerei?"),
            memory("ana", 2, created="day-001/scene-02", importance=2, description="Ana: Unter dem dritten Stein links.")]
    rows += [memory("ana", n, created=f"day-002/scene-{n:02d}", importance=9, description=f"Notiz {n} zum Turmbau")
             for n in range(3, 40)]
    write_lines(empty_workspace, "ana", rows)
    stream = empty_workspace.stream("ana")
    question = stream.find(["ana-001"])["ana-001"]
    settings = Settings(language="de", budget=900, elsewhere=(question,))
    selection = get_strategy("ranked").select(stream, Query(text="Schlüssel Gießerei"), settings)
    # The question is shown in another part of the prompt (the day's memories); its answer belongs here.
    assert "ana-001" not in selection.ids and "ana-002" in selection.ids


def chat_line(number: int, text: str, scene: str = "day-003/scene-01") -> dict:
    return memory("ana", number, description=text, created=scene, type="conversation")


def test_a_question_to_someone_by_name_brings_their_answer_a_few_turns_later(empty_workspace):
    """The answer shares no word with the question and comes after others talked: the one asked
    is named in the question, and their lines in the next turns come with it."""
    rows = [memory("ana", n, description=filler(n), created=f"day-001/scene-{n:02d}") for n in range(1, 60)]
    rows += [chat_line(60, "Ben: Ines, hast du die Heizung vom Vermieter je repariert bekommen?"),
             chat_line(61, "Ben: Übrigens, der Drucker im Flur ist wieder kaputt."),
             chat_line(62, "Mara: Ich nehme den Zug um acht, wer kommt mit?"),
             chat_line(63, "Ines: Endlich, sie haben eine Wärmepumpe eingebaut, warmes Wasser!"),
             chat_line(64, "Ines: Und sonst? Alles ruhig hier.", scene="day-003/scene-02")]
    rows += [memory("ana", n, description=filler(n), created=f"day-004/scene-{n - 64:02d}") for n in range(65, 90)]
    studio(empty_workspace, rows)
    picked = by_id(recall(empty_workspace, "ana", "Wie wurde die Heizung vom Vermieter repariert?", budget=2000))
    assert picked["ana-063"].neighbour_of == "ana-060"  # Ines' answer, three turns on
    assert "ana-062" not in picked or picked["ana-062"].neighbour_of is None  # Mara was not asked
    assert "ana-064" not in picked or picked["ana-064"].neighbour_of is None  # another scene


def test_two_people_asking_each_other_the_same_question_are_two_lines(empty_workspace):
    """Near-duplicates are what one speaker says twice; two speakers saying the same are two facts."""
    rows = [memory("ana", n, description=filler(n), created=f"day-001/scene-{n:02d}") for n in range(1, 40)]
    rows += [chat_line(40, "Caroline: Melanie, did the landlord ever fix the boiler?", "day-002/scene-01"),
             chat_line(41, "Melanie: Finally, they put in a heat pump, hot water again!", "day-002/scene-01"),
             chat_line(42, "Melanie: Caroline, did the landlord ever fix the boiler?", "day-004/scene-01"),
             chat_line(43, "Caroline: Finally, they put in a gas combi, hot water again!", "day-004/scene-01")]
    studio(empty_workspace, rows)
    picked = by_id(recall(empty_workspace, "ana", "landlord boiler", budget=3000))
    assert {"ana-040", "ana-042"} <= set(picked)
    assert {"ana-041", "ana-043"} <= set(picked)  # and each answer with its question
