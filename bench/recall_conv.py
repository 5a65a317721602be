"""Conversation streams that look like real chats, and a studio diary that mixes languages (``recall.py --conv``).

``chat``: two people talking over many sessions days apart, every turn a ``"Speaker: text"`` conversation memory
without tags (as when a long public chat is imported), English text; the world's language is the one given
(``de`` is what ``init --empty`` gives). Small talk reuses the words the questions use ("first", "weekend", "great",
"running"), so a word match alone does not find the answer. Question categories:

- ``single``: the fact is one turn and the question shares a content word or two with it;
- ``reply``: the other speaker asks, the answer is the reply (the question shares words with the asking turn);
- ``followup``: the speaker starts a topic, the other reacts, the speaker gives the answer two turns later;
- ``paraphrase``: the question shares no content word with its evidence (world knowledge, synonyms);
- ``multi``: two turns in sessions far apart, both needed.

``studio``: a German diary with English tags and English terms in the text; a broad tag (``#performance``) on
about 30 % of the memories, and ten versions of one checklist artifact; questions in German.
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter, defaultdict

AGENT = "ana"
PAIRS = [("Melanie", "Caroline"), ("Andrew", "Audrey"), ("Jon", "Gina"), ("Nate", "Joanna"), ("Tim", "John"),
         ("Maria", "Evan"), ("Deborah", "Jolene"), ("Calvin", "Dave"), ("Sam", "Priya"), ("Lena", "Omar")]

# kind ~ lines (A: the fact's owner, B: the other speaker; a leading * marks evidence) ~ question ~ answers ~ near
# misses (said now and then by either speaker: the same words, no answer)
FACTS = """
single ~ *A: I finally signed up for {X} classes at the community centre, every Tuesday evening. ~ What classes did {A} sign up for? ~ pottery|salsa|watercolour|ceramics ~ I keep saying I'll sign up for something, but the evenings are so full.|The community centre has a new schedule out, so many classes.|Tuesday evenings are the worst, the kids have practice.
single ~ *A: My grandmother left me a {X} when she passed away, I keep it in the hallway. ~ What did {A}'s grandmother leave {A}? ~ grandfather clock|sewing machine|rocking chair|piano ~ My grandmother used to sing to us in the kitchen.|I found an old photo of my grandmother in the hallway.|She passed away the week of my birthday, it still hurts.
single ~ *A: We adopted a {X} from the shelter last week, the kids adore him. ~ What pet did {A} adopt from the shelter? ~ beagle puppy|grey tabby cat|three-legged terrier|rescue greyhound ~ The kids keep asking for a pet from the shelter.|The shelter near us is always full, it's heartbreaking.|We walked past the shelter last week and the kids adore the dogs there.
single ~ *A: I volunteered at the {X} for the first time yesterday, it was so rewarding. ~ Where did {A} volunteer for the first time? ~ food bank|homeless shelter|animal hospital|soup kitchen ~ I want to volunteer more, it feels so rewarding when I do.|For the first time in ages I had a free Saturday.|Yesterday was so rewarding, the kids helped me bake.
single ~ *A: My favourite band growing up was {X}, I still know every song. ~ Which band was {A}'s favourite growing up? ~ Nirvana|ABBA|Radiohead|Fleetwood Mac ~ Growing up we only had the radio, I know every song from that time.|My favourite song came on in the car and I cried.|I still know every word of the songs we sang growing up.
single ~ *A: I got a tattoo of a {X} on my wrist to remember my mom. ~ What tattoo did {A} get to remember their mom? ~ sunflower|swallow|lighthouse|compass ~ I've always wanted a tattoo but I'm scared of needles.|My mom would have hated tattoos, honestly.|I keep a photo of my mom on my desk to remember her.
reply ~ B: How has running been going for you lately? | *A: Honestly it's been great for {X}, I feel so much calmer. ~ What does {A} say running has been great for? ~ clearing my head|my mental health|sleeping better|destressing after work ~ Running has been hard since I hurt my knee.|I've been running less lately, work is crazy.|Running with the kids is great but slow.
reply ~ B: What did you end up doing for your birthday? | *A: We drove out to {X} and had a picnic, just the family. ~ How did {A} spend their birthday? ~ the lake|the vineyard|the old quarry|the coast ~ My birthday is coming up and I have no plans.|We had a picnic at the park with the kids.|The family drove out to see my mom.
reply ~ B: Did you ever find a new job after the layoffs? | *A: Yes! I'm working at {X} now, the team is lovely. ~ Where does {A} work after the layoffs? ~ a bakery|the city library|a bike shop|a bookstore ~ The layoffs hit so many people I know.|I'm thinking about a new job, this one is draining.|The team at work is lovely but the pay is not.
reply ~ B: What are the kids into these days? | *A: They are completely obsessed with {X}, it's all they talk about. ~ What are {A}'s kids obsessed with? ~ dinosaurs|volcanoes|space rockets|sharks ~ The kids talk about school all day.|They are obsessed with that cartoon, it's all they watch.|The kids are into everything these days.
reply ~ B: Where did you go during the first weekend of August? | *A: We went camping at {X}, the stars were unreal. ~ Where did {A} go during the first weekend of August? ~ Yosemite|Lake Tahoe|the Rockies|Big Sur ~ The first weekend of the month is always busy for us.|We want to go camping again, maybe in August.|August is my favourite month, long weekends outside.
reply ~ B: What made you want to start painting again? | *A: Seeing {X} at the museum, I cried a little. ~ What inspired {A} to start painting again? ~ the sunflowers by Van Gogh|a Monet exhibition|a Frida Kahlo show|an old landscape ~ I went to the museum with my sister last week.|Painting has been a good escape for me.|I want to start something creative again.
followup ~ *A: Guess what, I started learning an instrument. | B: No way, that's amazing! | *A: It's the {X}, my neighbour gives me lessons. ~ Which instrument is {A} learning? ~ cello|banjo|saxophone|ukulele ~ My neighbour plays music every evening, it's lovely.|I always wanted to learn an instrument.|Lessons for the kids are so expensive.
followup ~ *A: I have some news about the house. | B: Oh? Good news I hope! | *A: We're finally moving to {X} in the spring. ~ Where is {A} moving in the spring? ~ Portland|Denver|Austin|Boston ~ The house needs a new roof, more bad news.|We might be moving at some point, who knows.|Spring cleaning the house took all weekend.
followup ~ *A: I read the most amazing book this month. | B: Ooh, tell me, I need something new. | *A: It's {X}, I couldn't put it down. ~ What book did {A} recommend? ~ Becoming|Educated|The Overstory|Circe ~ I need a new book, any ideas?|I couldn't put my phone down last night, terrible.|This month has been amazing so far.
followup ~ *A: My sister called with big news yesterday. | B: What happened? | *A: She's {X}, we're all so excited. ~ What was {A}'s sister's big news? ~ getting married in June|expecting twins|moving back home|starting medical school ~ My sister and I talk every Sunday.|Big news at work: we're getting a new boss.|We're all so excited about the summer.
paraphrase ~ *A: Last year we did {X}, it was the best trip of my life. ~ Which European countries has {A} visited? ~ Spain and England|Italy and Greece|Portugal and France|Norway and Denmark ~ The best trip we ever did was a road trip with the kids.|Last year was a hard one for the family.|We want to travel more next year.
paraphrase ~ *A: I've been clean from cigarettes for {X} now. ~ How long ago did {A} quit smoking? ~ two years|eight months|five years|a whole year ~ My dad smoked for years, I hated it.|I've been clean and sober from sugar for a month, haha.|Quitting anything is hard.
paraphrase ~ *A: Spent the whole afternoon at the vet, {X} has a broken paw. ~ Which animal of {A}'s got injured? ~ our cat Luna|the puppy|our dog Max|the old tomcat ~ The vet bill was huge last time.|We spent the afternoon at the park.|The neighbour's cat sits on our fence all day.
paraphrase ~ *A: The doctor says I have to avoid {X} from now on, no more pizza nights. ~ What food allergy or restriction does {A} have? ~ gluten|dairy|tomatoes|nuts ~ Pizza night is our family tradition.|The doctor says I need more sleep.|I'm trying to eat healthier, no more takeout.
multi ~ *A: I signed up for a half marathon in October! | ... | *A: I did it, finished in {X}, my legs are jelly. ~ What time did {A} run in the half marathon they signed up for? ~ 1 hour 52|2 hours 11|1 hour 47|2 hours 3 ~ I'd love to run a marathon someday.|My legs hurt after every run.|October is so busy for us.
multi ~ *A: We put an offer on a little house with a garden. | ... | *A: We got it! The house is painted {X} and I love it. ~ What colour is the house {A} made an offer on? ~ sage green|bright yellow|pale blue|brick red ~ We looked at a house with a garden last weekend.|House prices are insane right now.|I love our garden, it's my happy place.
"""

SMALL = """
open: Hey!|Hi!|Oh wow,|Honestly,|Haha,|So,|Ugh,|You know what,|Yeah,|Good morning!|Sorry for the late reply,|Aww,
topic: running|painting|the kids|work|the garden|camping|my sister|the dog|the new house|cooking|music|classes|reading|the weekend|my mom|the trip|school|the beach|yoga|family dinner
says: I went for a long run this morning, first time in weeks.|Work has been crazy since the new manager started.|The kids had a great time at the park on Saturday.|I tried a new recipe last night, it was a disaster.|We are thinking about a trip somewhere warm this summer.|Painting has been my escape lately, I do it every evening.|My mom came over and we watched old movies all day.|The garden is finally blooming, the roses look great.|I need a long weekend so badly.|We went to the beach for the first time this year.|I can't believe how fast the kids are growing.|Running in the rain is actually kind of great.|I signed the papers for the car today, so that's done.|Yoga class was really hard today but I loved it.|I'm going to bring snacks to the party on Friday.|It has been so long since we talked properly!|My sister and I went shopping, she bought way too much.|I volunteered to organise the school bake sale, what was I thinking.|Camping is fun until it rains, then it's a nightmare.|I finally finished that book you lent me.|The dog learned a new trick, he can open the fridge now.|We had a family dinner on Sunday, first one in months.|I'm trying to go to bed earlier, it's not working.|The new house needs so much work, but we love it.|I've been listening to a lot of old music lately.|We drove past the lake on the way home, it was beautiful.|My back hurts from all the gardening this weekend.|Work sent me to a conference, first time I've travelled alone.|The kids want a pet so badly, we keep saying maybe.|Cooking with the kids is chaos but they love it.|I went to a concert last night, the band was great.|I'm thinking about taking some classes, maybe art or music.|My mom's birthday is next week and I have no idea what to get.|We went hiking and got completely lost for an hour.|I bought new running shoes, they feel great so far.|The weather has been so nice, we've been outside all week.
react: That sounds great!|Oh no, I'm sorry.|Haha, I love that.|That's so sweet.|Wow, good for you!|I totally get that.|You deserve it.|That must have been hard.|I'm so happy for you.|Tell me more!|Same here, honestly.|That's amazing, really.|No way!|Ugh, I know the feeling.
ask: How was your weekend?|How are the kids doing?|What have you been up to?|How's work going?|Did you do anything fun?|How is your mom?|Any plans for the summer?|How was the trip?|Have you been painting much?|How's the new place?
"""


# Replies that come late (``chat(…, late=True)``, the set ``late`` of ``recall.py --conv``): one speaker
# asks the other by name, a few turns of small talk pass, then the answer, which shares no word with the
# question. Part of the tuning side: ``ranked``'s reach for them is chosen here, never on the held-out set.
LATE = """
late ~ B: {A}, did the landlord ever fix the boiler? | *A: Finally, they put in a {X}, hot water again! ~ How did {A}'s landlord fix the boiler? ~ heat pump|gas combi|electric tank|solar heater ~ The landlord never answers my emails.|Our boiler makes a strange noise at night.|Hot water again would be a dream.
late ~ B: How was the wedding on Saturday, {A}? | *A: Beautiful. The best bit was {X}. ~ What was the best bit of the wedding {A} went to on Saturday? ~ the first dance|the speeches|the fireworks|the cake ~ We have a wedding every weekend this summer.|Saturday was so hot, I stayed inside.|The best bit of my week was sleeping in.
late ~ B: {A}, what did you decide about the job in Lisbon? | *A: I said no in the end, {X}. ~ What did {A} decide about the job in Lisbon? ~ the salary was too low|my mom needs me here|the kids didn't want to move|the hours were crazy ~ Lisbon is on my list for next year.|I can't decide anything before coffee.|A friend got a job abroad, I'm jealous.
late ~ B: Did your sister like the present, {A}? | *A: She loved it, she wore the {X} all evening. ~ What present did {A} give their sister? ~ silver bracelet|green scarf|vintage watch|wool hat ~ My sister never likes anything I buy.|Presents for the kids are getting expensive.|I still have to wrap the present for my mom.
"""


def pools(text: str) -> dict[str, list[str]]:
    return {k: v.split("|") for k, v in (line.split(": ", 1) for line in text.strip().splitlines())}


S = pools(SMALL)
TEMPLATES = [[p.strip() for p in line.split(" ~ ")] for line in FACTS.strip().splitlines()]
LATE_TEMPLATES = [[p.strip() for p in line.split(" ~ ")] for line in LATE.strip().splitlines()]


def small_talk(rng: random.Random, a: str, b: str, turns: int) -> list[str]:
    """A session's filler: one speaker tells, the other reacts or asks back."""
    out, who = [], rng.choice((a, b))
    for _ in range(turns):
        kind = rng.choices(("says", "react", "ask"), (60, 25, 15))[0]
        text = rng.choice(S[kind])
        if kind == "says" and rng.random() < 0.4:
            text = f"{rng.choice(S['open'])} {text}"
        if kind == "says" and rng.random() < 0.5:  # real turns often say two things
            text += " " + rng.choice(S["says"])
        if kind == "react" and rng.random() < 0.5:
            text += " " + rng.choice(S["says"])
        out.append(f"{who}: {text}")
        who = b if who == a else a
    return out


def chat(pair_index: int, sessions: int = 24, seed: int = 1, late: bool = False) -> tuple[list[dict], list[dict]]:
    """One conversation (memories as dicts, as in the JSONL file) and its questions; ``late``: with
    the replies that come a few turns after the question as well (``LATE``)."""
    rng = random.Random(f"conv/{pair_index}/{seed}")
    a0, b0 = PAIRS[pair_index % len(PAIRS)]
    session_turns = [small_talk(rng, a0, b0, rng.randint(18, 30)) for _ in range(sessions)]
    evidence_at: list[list[tuple[int, int]]] = []  # per question: (session, turn) inserted, filled below
    questions, plants = [], []  # plants: (session, position, [(text, is_evidence)], question index)
    for t, (kind, lines, question, answers, misses) in enumerate(TEMPLATES):
        for miss in misses.split("|"):
            for _ in range(2):
                plants.append((rng.randrange(sessions), [(f"{rng.choice((a0, b0))}: {miss}", False)], None))
        for (owner, other), x in zip(((a0, b0), (b0, a0)), rng.sample(answers.split("|"), 2)):
            parts = [p.strip() for p in lines.split("|")]
            turns = [(p.lstrip("*").replace("A:", f"{owner}:", 1).replace("B:", f"{other}:", 1).replace("{X}", x),
                      p.startswith("*")) for p in parts]
            q = len(questions)
            questions.append({"id": f"q{pair_index}-{q:03d}", "text": question.replace("{A}", owner),
                              "kind": kind, "answer": x, "evidence": []})
            if kind == "multi":
                first = rng.randrange(0, sessions // 2)
                plants.append((first, [turns[0]], q))
                plants.append((rng.randrange(first + sessions // 3, sessions), [turns[2]], q))
            else:
                plants.append((rng.randrange(sessions), turns, q))
    if late:
        _plant_late(random.Random(f"late/{pair_index}/{seed}"), (a0, b0), sessions, questions, plants, pair_index)
    for session, turns, q in plants:  # a planted exchange stays together
        block = session_turns[session]
        block.insert(rng.randrange(1, len(block)), [(text, ev, q) for text, ev in turns])
    return as_rows(rng, session_turns, questions, (2, 12)), questions


def as_rows(rng: random.Random, blocks: list, questions: list[dict], days_apart: tuple[int, int]) -> list[dict]:
    """The sessions' turns (a planted exchange a list of (text, evidence, question) inside its
    block) as memories, sessions ``days_apart`` days apart; each question gets its evidence ids."""
    rows, day = [], 1
    for block in blocks:
        day += rng.randint(*days_apart)
        turns = [turn for item in block for turn in (item if isinstance(item, list) else [(item, False, None)])]
        for text, ev, q in turns:
            mem_id = f"{AGENT}-{len(rows) + 1:04d}"
            if ev:
                questions[q]["evidence"].append(mem_id)
            rows.append({"id": mem_id, "created": f"day-{day:03d}/scene-01", "type": "conversation",
                         "description": text, "importance": rng.choice((3, 4, 5, 5, 6, 7)), "tags": [],
                         "evidence": [], "metadata": {}})
    return rows


STUDIO_FACTS = [
    ("Vera hat die Silhouetten der Knochentürme für den Playtest lesbarer gemacht: schwarze Kanten, helle Spitzen.",
     "Wie hat Vera die Silhouetten lesbarer gemacht?", ["silhouettes", "bone-towers"]),
    ("Darius misst im Boss-Level nur noch 41 fps, seit die Asche-Partikel doppelt gerendert werden.",
     "Warum ist die Framerate im Boss-Level eingebrochen?", ["performance", "ash-particles"]),
    ("Nami will den Dialog der Heldin im Intro auf drei Zeilen kürzen, weil Tester ihn überspringen.",
     "Was will Nami am Intro-Dialog ändern?", ["dialogue", "protagonist"]),
    ("Tobi hat im Build 0.7 einen Memory-Leak im Audio-Streaming gefunden, der nach 20 Minuten crasht.",
     "Welchen Fehler hat Tobi im Audio gefunden?", ["audio", "bugs"]),
    ("Emre schlägt vor, die Karte des Gebirges als Faltkarte ins Inventar zu legen.",
     "Wo soll die Gebirgskarte hin?", ["navigation", "ui"]),
    ("Greta hat mit dem Publisher vereinbart, dass der Vertical Slice erst am 14. März fällig ist.",
     "Wann ist der Vertical Slice fällig?", ["deadline", "vertical-slice"]),
]
STUDIO_FILL = {
    "open": "Heute Vormittag|Nach dem Stand-up|Im Playtest|Kurz vor Feierabend|Beim Mittagessen|Am Whiteboard|Gestern Abend",
    "who": "Vera|Darius|Nami|Tobi|Emre|Greta|Leo|Ich",
    "did": "hat den Shader für|hat die Performance von|hat neue Concept-Art für|hat das Budget für|hat den Sound für|"
           "hat die Lichtstimmung für|hat ein Review für|hat die Kollisionen für",
    "what": "die fallende Asche im Wald|die Katakomben|den Bosskampf|das Intro|die Heldin|den Händler|die Gebirgskarte|"
            "den Trailer|das Inventar|die Zwischensequenz",
    "how": "überarbeitet|vereinfacht|getestet|verworfen|dokumentiert|gemessen|neu gebaut",
    "more": "|| Die Framerate bleibt ein Thema.| Das Team war zufrieden.| Morgen geht es weiter.| Die Asche verdeckt die "
            "Sicht noch.| Leo will das im nächsten Build sehen.",
}
PEOPLE = ["Vera", "Darius", "Nami", "Tobi", "Emre", "Greta", "Leo"]


def _plant_late(rng: random.Random, pair: tuple[str, str], sessions: int, questions: list, plants: list,
                pair_index: int) -> None:
    """The ``LATE`` exchanges: the question, one to three turns of small talk, the answer."""
    for kind, lines, question, answers, misses in LATE_TEMPLATES:
        for miss in misses.split("|"):
            plants.append((rng.randrange(sessions), [(f"{rng.choice(pair)}: {miss}", False)], None))
        for (owner, other), x in zip((pair, pair[::-1]), rng.sample(answers.split("|"), 2)):
            ask, answer = (p.strip().lstrip("*").replace("A:", f"{owner}:", 1).replace("B:", f"{other}:", 1)
                           .replace("{A}", owner).replace("{X}", x) for p in lines.split("|"))
            q = len(questions)
            questions.append({"id": f"q{pair_index}-{q:03d}", "text": question.replace("{A}", owner),
                              "kind": kind, "answer": x, "evidence": []})
            between = [(t, False) for t in small_talk(rng, owner, other, rng.randint(1, 3))]
            plants.append((rng.randrange(sessions), [(ask, False), *between, (answer, True)], q))


def studio(size: int = 1500, seed: int = 1) -> tuple[list[dict], list[dict], list[dict]]:
    """A German diary with English tags: memories, questions, and WORK-like scene queries (for near-duplicates)."""
    rng = random.Random(f"studio/{size}/{seed}")
    rows, questions = [], []
    facts = {rng.randrange(size): f for f in STUDIO_FACTS}
    versions = sorted(rng.sample(range(size // 2, size), 10))
    for i in range(size):
        tags, kind = [], "observation"
        if i in facts:
            text, question, tags = facts[i]
            questions.append({"id": f"s{len(questions):03d}", "text": question, "kind": "studio",
                              "evidence": [f"{AGENT}-{i + 1:04d}"], "tags": []})
        elif i in versions:
            n = versions.index(i) + 1
            kind, tags = "artifact", ["release", "checklist"]
            text = (f"Release-Checkliste v{n}: Build prüfen, Savegames testen, Crash-Reports sichten, "
                    f"Store-Texte {'fertig' if n > 5 else 'offen'}, Schritt {n} von 10 erledigt.")
        else:
            pick = {k: rng.choice(v.split("|")) for k, v in STUDIO_FILL.items()}
            text = f"{pick['open']} {pick['who'].lower() if pick['who'] == 'Ich' else pick['who']} {pick['did']} " \
                   f"{pick['what']} {pick['how']}.{pick['more']}"
            text = text.replace("ich hat", "habe ich").replace(" ich hat ", " habe ich ")
            tags = rng.sample(["ash-particles", "catacombs", "playtest", "intro", "team", "lighting"], 2)
        if kind != "artifact" and rng.random() < 0.3:
            tags = ["performance", *tags]  # the broad tag
        rows.append({"id": f"{AGENT}-{i + 1:04d}", "created": f"day-{1 + i // 12:03d}/scene-{1 + i % 12 // 3:02d}",
                     "type": kind, "description": text, "importance": rng.choice((3, 4, 5, 6)), "tags": tags,
                     "evidence": [], "metadata": {}})
    scenes = [
        {"text": "", "context": "Lesbare Silhouetten trotz fallender Asche", "tags": ["performance", "silhouettes"]},
        {"text": "", "context": "Release vorbereiten: Checkliste abarbeiten", "tags": ["release"]},
        {"text": "Framerate im Boss-Level", "context": "", "tags": ["performance"]},
    ]
    return rows, questions, scenes


# -- the baselines ----------------------------------------------------------------------------------------------

WORD = re.compile(r"\w+")


class BM25:
    def __init__(self, rows: list[dict], k1: float = 1.2, b: float = 0.75):
        self.postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        lengths = []
        for doc, row in enumerate(rows):
            counts = Counter(WORD.findall(row["description"].lower()))
            lengths.append(sum(counts.values()))
            for word, tf in counts.items():
                self.postings[word].append((doc, tf))
        self.n, self.k1, self.b = len(rows), k1, b
        average = sum(lengths) / len(lengths)
        self.norm = [k1 * (1 - b + b * length / average) for length in lengths]

    def rank(self, query: str) -> list[int]:
        scores: dict[int, float] = defaultdict(float)
        for word in set(WORD.findall(query.lower())):
            posting = self.postings.get(word, ())
            idf = math.log(1 + (self.n - len(posting) + 0.5) / (len(posting) + 0.5))
            for doc, tf in posting:
                scores[doc] += idf * tf * (self.k1 + 1) / (tf + self.norm[doc])
        return sorted(scores, key=lambda d: (-scores[d], -d))


def baselines(rows: list[dict], index: "BM25", chars: list[int], question: str,
              budgets: list[int]) -> dict[str, dict[int, set]]:
    """``bm25`` and ``bm25+nb`` selections of ``question`` at each budget (sets of memory ids): best first while
    lines fit (``chars``: each memory's rendered line, as ``recall --budget`` counts it), 40 misses end it; ``+nb``
    takes the memories before and after each hit in the same session right after it."""
    out: dict[str, dict[int, set]] = {"bm25": {}, "bm25+nb": {}}
    order = index.rank(question)
    scene = [r["created"] for r in rows]
    for budget in budgets:
        for method in out:
            left, picked, misses = budget, set(), 0
            for doc in order:
                if left <= 0 or misses >= 40:
                    break
                group = [doc] + ([d for d in (doc - 1, doc + 1) if 0 <= d < len(rows) and scene[d] == scene[doc]]
                                 if method == "bm25+nb" else [])
                for d in group:
                    if d in picked:
                        continue
                    if chars[d] > left:
                        misses += d == doc
                        continue
                    misses = 0 if d == doc else misses
                    picked.add(d)
                    left -= chars[d]
            out[method][budget] = {rows[d]["id"] for d in picked}
    return out


def sample(questions: list[dict], limit: int | None) -> list[dict]:
    """Every question, or ``limit`` of them spread evenly over the list (so over all templates)."""
    if not limit or limit >= len(questions):
        return questions
    step = len(questions) / limit
    return [questions[int(k * step)] for k in range(limit)]


def with_day_part(root, agent: str, question: str, day_question: str, name: str, budget: int, share: float) -> set[str]:
    """The memories a scene prompt shows when ``share`` of the budget went to memories chosen for
    the day (``gamemaster/day_memories.py``): ``day_question``, another question about the same
    stream, stands in for the day's plan and chooses that share (and the newest reflections, of the
    whole budget); ``question`` chooses from what is left, leaving those out."""
    from dataclasses import replace

    from gamemaster.retrieval import Query, get_strategy, settings_for
    from gamemaster.workspace import Workspace

    workspace = Workspace(root)
    world, strategy, stream = workspace.load_world(), get_strategy(name), workspace.stream(agent)
    names = (agent, workspace.load_agent(agent).name)
    settings = replace(settings_for(world, int(budget * share)), whole=budget)
    day = strategy.select(stream, Query(text=day_question, names=names), settings)
    settings = replace(settings_for(world, max(0, budget - day.chars)), whole=budget,
                       elsewhere=tuple(p.memory for p in day.picked))
    return set(day.ids) | set(strategy.select(stream, Query(text=question, names=names), settings).ids)
