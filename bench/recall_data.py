"""Labelled recall data: long memory streams (agent ``ana``) with planted facts and paraphrased questions.

``studio``: Ana's diary of work on a game (colleagues, tags); ``chat``: two people talking over many sessions
(``"Speaker: text"``, no tags, as in LoCoMo). Each fact template is planted four times (other people, answers) and
competes with near misses (same name and nouns, no answer) and filler about the same private topics. Content is
plain text: a record per line, indented lines continue it, ``|`` separates choices. Facts: ``kind ~ text ~ question
~ near misses ~ answers``; kind s: one line, a: question and answer in one scene, f: two lines far apart.
"""

from __future__ import annotations

import functools
import json
import random
import string
from pathlib import Path

AGENT = "ana"
PER_DAY, PER_SCENE, REFLECTION_EVERY = 15, 3, 30
IMPORTANCE_WEIGHTS = (3, 6, 8, 9, 9, 8, 6, 4, 2, 1)  # the same for filler, facts and near misses
TAGS = ("dungeon bone-towers ash-particles core-loop vertical-slice scope navigation lore playtest performance "
        "protagonist concept-art team deadline").split()
PRONOUNS = {"de": {"m": dict(er="er", sein="sein", ihn="ihn"), "f": dict(er="sie", sein="ihr", ihn="sie")},
            "en": {"m": dict(he="he", his="his", him="him"), "f": dict(he="she", his="her", him="her")}}
ASKED = {"de": ("Ich", "{A} fragte {P}: „{s}“", "{P} antwortete: „{s}“"),
         "en": ("I", "{A} asked {P}: “{s}”", "{P} replied: “{s}”")}
FACTS_DE = """
s ~ {P} hat {sein}er Katze den Namen {X} gegeben, nach einer Figur aus einem alten Comic. ~ Wie heißt {Pg} Katze? ~
  {P} hat heute die Katze der Nachbarin gefüttert.|{P} erzählt, dass {sein}e Katze nachts über die Tastatur läuft. ~
  Minka|Pixel|Krümel|Lakritz|Mogli
s ~ {P} ist als Kind mit {sein}en Eltern nach {X} gezogen und hat dort schwimmen gelernt. ~ Wohin ist {Pg} Familie
  umgezogen, als {er} ein Kind war? ~ {P} wollte als Kind nie schwimmen lernen.|{Pg} Eltern besuchen {ihn} bald im
  Studio. ~ Kiel|Passau|Görlitz|Lübeck|Konstanz
s ~ {P} spielt seit Jahren {X} in einer Band, die nur auf Hochzeiten auftritt. ~ Welches Instrument spielt {P} in der
  Hochzeitsband? ~ {P} hat auf der Hochzeit {sein}er Cousine getanzt.|Der Band von {Pg} Bruder fehlt jemand am Bass. ~
  Posaune|Akkordeon|Bratsche|Schlagzeug|Kontrabass
s ~ {P} hat sich beim Bouldern {X} gebrochen und ist zwei Wochen krankgeschrieben. ~ Welche Verletzung hat {P} vom
  Bouldern? ~ {P} geht nach der Arbeit noch bouldern.|{P} hat sich beim Kicker fast den Daumen verstaucht. ~ das
  Handgelenk|das Schlüsselbein|den kleinen Finger|die Nase|das Sprunggelenk
s ~ {P} trinkt Kaffee nur aus einer Tasse mit {X} drauf, die {er} auf einem Flohmarkt gefunden hat. ~ Welches Motiv
  ziert {Pg} Kaffeetasse vom Flohmarkt? ~ {P} hat die Kaffeemaschine entkalkt.|Auf dem Flohmarkt hat {P} nur alte
  Comics gefunden. ~ einem Leuchtturm|einem Dackel|einem Raumschiff|einer Erdbeere|einem Walross
s ~ {P} hat {X} im Schrebergarten geerntet und die Hälfte ins Studio mitgebracht. ~ Was wächst in {Pg} Schrebergarten?
  ~ {P} sucht jemanden, der im Urlaub {sein}en Garten gießt.|{Pg} Nachbar im Schrebergarten beschwert sich über die
  Hecke. ~ vierzig Zucchini|einen Eimer Johannisbeeren|zwei Kisten Tomaten|einen Korb Mirabellen
s ~ {P} hat {sein}e Masterarbeit über {X} geschrieben, bevor {er} in die Spielebranche kam. ~ Worüber hat {P} {sein}e
  Abschlussarbeit an der Uni geschrieben? ~ {P} hat einem Praktikanten bei dessen Masterarbeit geholfen.|{P} findet
  die Spielebranche anstrengender als die Uni. ~ den Vogelzug in der Arktis|Glockengießerei|Schimmel in
  Museen|Kirchenakustik
s ~ {P} fährt jeden Morgen mit einem alten Rennrad ins Studio, das {er} {X} geerbt hat. ~ Wer hat {P} das Fahrrad
  vererbt? ~ {P} hat im Hof das Rennrad eines Kollegen geflickt.|{Pg} Fahrrad stand den ganzen Tag im Regen. ~ von
  einem Nachbarn|von der Großtante|vom Patenonkel|von der Grundschullehrerin
s ~ {P} hat Angst vor {X}, seit {er} als Kind im Zoo eine schlimme Begegnung hatte. ~ Welche Tiere machen {P} Angst? ~
  {P} hat keine Angst vor Spinnen, nur vor Deadlines.|{P} war am Sonntag mit {sein}en Neffen im Zoo. ~
  Ziegen|Papageien|Gänsen|Lamas
s ~ {P} hat im Urlaub in {X} einen Kochkurs gemacht und kocht seitdem jeden Freitag. ~ Wo besuchte {P} während der
  Ferien einen Kochkurs? ~ {P} hat für das Team Suppe gekocht.|{P} plant den nächsten Urlaub, weiß aber nicht wohin. ~
  Oaxaca|Hanoi|Tiflis|Palermo
s ~ {Pg} Schwester arbeitet als {X} auf einem Containerschiff. ~ Was ist die Schwester von {P} beruflich? ~ {Pg}
  Schwester hat im Studio angerufen, weil {P} nicht ans Handy ging.|{P} hat Fotos von einem Containerschiff gezeigt. ~
  Schiffsköchin|Elektrikerin|Funkerin|Ärztin
s ~ {P} hat {sein}en ersten Lohn aus der Spielebranche für {X} ausgegeben. ~ Was hat sich {P} vom ersten Gehalt
  gekauft? ~ {P} findet den Lohn in der Spielebranche zu niedrig.|{P} hat sich heute einen neuen Stuhl gekauft. ~ eine
  gebrauchte Harfe|einen Flug nach Island|ein Aquarium mit Axolotln|eine Lederjacke
a ~ Wie heißt eigentlich dein Hund?|{X}. Den Namen hat sich meine Nichte ausgedacht. ~ Wie wird der Hund von {P}
  gerufen? ~ {P} will den Hund nächste Woche mit ins Studio bringen.|{P} ist früh gegangen, weil der Hund zum Tierarzt
  musste. ~ Bruno|Keks|Waldemar|Tofu
a ~ Was hast du am Wochenende gemacht?|Ich war auf einem {X} und erst um vier Uhr zu Hause. ~ Wo war {P} am
  vergangenen Wochenende? ~ {P} will am Wochenende endlich ausschlafen.|{P} sagt, das nächste Wochenende sei schon
  verplant. ~ Konzert von Element of Crime|Mittelalterfest|Polterabend|Schlagerfestival
a ~ Wohin fährst du eigentlich im Sommer?|Mit dem Zug nach {X}, ganz ohne Laptop. ~ Was ist {Pg} Reiseziel im Sommer?
  ~ {P} hat für den Sommer keine Urlaubstage mehr.|Der Zug von {P} hatte heute vierzig Minuten Verspätung. ~
  Trondheim|Triest|Krakau|Bordeaux
a ~ Was liest du gerade?|Einen dicken Roman über {X}, ich komme kaum voran. ~ Welches Buch liest {P} zurzeit? ~ {P}
  hat das Buch über Spieldesign im Zug liegen lassen.|{P} liest in der Pause lieber Comics als Romane. ~ einen
  Leuchtturmwärter|die Hanse|eine Polarexpedition|einen Uhrmacher in Prag
f ~ {P} hat {sein}e Wohnung in der Altstadt gekündigt.|{P} wohnt inzwischen in {X}, einem Dorf mit nur einem Bäcker. ~
  Wohin zog {P}, nachdem {er} die Wohnung in der Altstadt aufgegeben hatte? ~ {P} hat eine Wohnungsanzeige für die
  Altstadt geteilt.|{P} sucht noch Umzugskartons. ~ Hohenhameln|Wippingen|Bad Sooden|Klein Nordende
f ~ {P} hat sich für einen Halbmarathon im Herbst angemeldet.|{P} hat die 21 Kilometer in {X} geschafft und war stolz
  wie nie. ~ Welche Zeit hat {P} beim Halbmarathon erreicht? ~ {P} läuft jetzt jeden Morgen durch den Park.|{P} hat
  {sein}e Laufschuhe im Studio vergessen. ~ 1:52 Stunden|2:11 Stunden|1:47 Stunden|2:03 Stunden
f ~ {P} hat im Tierheim einen Antrag für ein Kaninchen gestellt.|Das Kaninchen von {P} heißt jetzt {X} und frisst am
  liebsten Petersilie. ~ Wie heißt das Tier, das {P} aus dem Tierheim geholt hat? ~ {P} hat Spenden für das Tierheim
  gesammelt.|Das Kaninchen der Nachbarskinder ist wieder ausgebüxt. ~ Ronja|Herr Müller|Brösel|Flocke
f ~ {P} hat einen alten VW-Bus gekauft, um durch Europa zu fahren.|{P} hat den Bus {X} lackiert, mit weißen Punkten
  auf dem Dach. ~ In welcher Farbe hat {P} den gekauften Bus gestrichen? ~ {P} hat den Bus verpasst und kam zu spät
  zum Stand-up.|{P} schwärmt von einem gelben Auto im Parkhaus. ~ petrolblau|senfgelb|tannengrün|lachsrosa
"""
FACTS_EN = """
s ~ {P} named {his} cat {X}, after a character from an old comic. ~ What is {Pg} cat called? ~ {P} fed the neighbour's
  cat today.|{P} says {his} cat walks across the keyboard at night. ~ Minka|Pixel|Biscuit|Licorice|Mowgli
s ~ {P} moved to {X} with {his} parents as a child and learned to swim there. ~ Which town did {P} live in as a child?
  ~ {P} never wanted to learn to swim as a child.|{Pg} parents are visiting {him} at the studio soon. ~
  Duluth|Aberdeen|Hobart|Galway|Nantes
s ~ {P} has played the {X} for years in a band that only performs at weddings. ~ What does {P} play in the wedding
  band? ~ {P} danced at {his} cousin's wedding.|The band of {Pg} brother needs a new bass player. ~
  trombone|accordion|viola|drums|double bass
s ~ {P} broke {his} {X} while bouldering and is on sick leave for two weeks. ~ What injury did {P} get from
  bouldering? ~ {P} wants to go bouldering after work.|{P} almost sprained a thumb playing table football. ~
  wrist|collarbone|little finger|nose|ankle
s ~ {P} only drinks coffee from a mug with {X} on it that {he} found at a flea market. ~ What is printed on the mugs
  {P} bought at the flea market? ~ {P} descaled the coffee machine.|At the flea market {P} only found old comics. ~ a
  lighthouse|a dachshund|a spaceship|a strawberry|a walrus
s ~ {P} harvested {X} from {his} allotment and brought half of it to the studio. ~ What grows in {Pg} allotment? ~ {P}
  needs someone to water {his} garden during the holidays.|{Pg} neighbour at the allotment complains about the hedge.
  ~ forty courgettes|a bucket of redcurrants|two crates of tomatoes|a basket of plums
s ~ {P} wrote {his} master's thesis on {X} before joining the games industry. ~ What was the topic of {Pg} thesis? ~
  {P} helped an intern with a master's thesis.|{P} finds the games industry more exhausting than university. ~ bird
  migration in the Arctic|medieval bell founding|mould in museums|the acoustics of cathedrals
s ~ {P} rides an old racing bike to the studio every morning; {he} inherited it from {X}. ~ Who did {P} inherit {his}
  bike from? ~ {P} fixed a colleague's racing bike in the courtyard.|{Pg} bike stood in the rain all day. ~ a
  neighbour|a great-aunt|a godfather|a primary school teacher
s ~ {P} has been afraid of {X} since a bad encounter at the zoo as a child. ~ Which animal is {P} afraid of? ~ {P} is
  not afraid of spiders, only of deadlines.|On Sunday {P} took {his} nephews to the zoo. ~ goats|parrots|geese|llamas
s ~ {P} took a cooking class in {X} on holiday and has cooked every Friday since. ~ Where did {P} attend a cooking
  course? ~ {P} cooked soup for the team.|{P} is planning the next holiday but doesn't know where yet. ~
  Oaxaca|Hanoi|Tbilisi|Palermo
s ~ {Pg} sister works as {X} on a container ship. ~ What does {Pg} sister do for a living? ~ {Pg} sister called the
  studio because {P} didn't answer the phone.|{P} showed photos of a container ship. ~ a ship's cook|an electrician|a
  radio operator|a doctor
s ~ {P} spent {his} first games industry paycheck on {X}. ~ What did {P} buy with the first salary? ~ {P} thinks pay
  in the games industry is too low.|{P} bought a new chair today. ~ a used harp|a flight to Iceland|an aquarium with
  axolotls|a leather jacket
a ~ What's your dog called, by the way?|{X}. My niece came up with the name. ~ What name does {Pg} dog have? ~ {P}
  wants to bring the dog to the studio next week.|{P} left early because the dog had to go to the vet. ~
  Bruno|Cookie|Waldemar|Tofu
a ~ What did you do at the weekend?|I went to a {X} and didn't get home until four. ~ Where was {P} last weekend? ~
  {P} wants to finally sleep in this weekend.|{P} says next weekend is already booked. ~ Nick Cave concert|medieval
  fair|stag party|folk festival
a ~ Where are you going this summer?|By train to {X}, without a laptop. ~ What is {Pg} holiday destination for the
  summer? ~ {P} has no holiday days left for the summer.|{Pg} train was forty minutes late today. ~
  Trondheim|Trieste|Krakow|Bordeaux
a ~ What are you reading at the moment?|A thick novel about {X}; I'm barely getting anywhere. ~ Which book is {P}
  reading currently? ~ {P} left the book on game design on the train.|At lunch {P} prefers reading comics to novels. ~
  a lighthouse keeper|the Hanseatic League|a polar expedition|a clockmaker in Prague
f ~ {P} gave notice on {his} flat in the old town.|{P} now lives in {X}, a village with a single bakery. ~ Where did
  {P} move after giving up the flat in the old town? ~ {P} shared a flat listing for the old town.|{P} is still
  looking for moving boxes. ~ Little Snoring|Upper Slaughter|Mousehole|Great Tew
f ~ {P} signed up for a half marathon in the autumn.|{P} finished the 21 kilometres in {X} and was prouder than ever.
  ~ What time did {P} manage in the half-marathon? ~ {P} now runs through the park every morning.|{P} forgot {his}
  running shoes at the studio. ~ 1:52 hours|2:11 hours|1:47 hours|2:03 hours
f ~ {P} applied at the animal shelter to adopt a rabbit.|{Pg} rabbit is now called {X} and loves parsley. ~ What is
  the name of the animal {P} adopted from the shelter? ~ {P} collected donations for the animal shelter.|The neighbour
  kids' rabbit has escaped again. ~ Ronja|Mr Miller|Crumble|Flake
f ~ {P} bought an old VW van to travel around Europe.|{P} has painted the van {X}, with white dots on the roof. ~ What
  colour did {P} paint the van? ~ {P} missed the bus and was late for stand-up.|{P} raves about a yellow car in the
  car park. ~ petrol blue|mustard yellow|fir green|salmon pink
"""
POOLS_DE = """
people: Vera:f Darius:m Nami:f Tobi:m Finn:m Emre:m Leo:m Greta:f Jana:f Paul:m Mira:f Karl:m
speakers: Ana:f Ben:m
leads: ||Stell dir vor:|Hab ich's dir schon erzählt?|Ach, und:|Neuigkeit:
observation: {open} hat {P} {obj} {part}.|{life}|{life}|{open} habe ich {obj} {part}.|{P} und {Q} haben {place} {obj}
  {part}.|{open} war {P} {mood}.
conversation: {P} sagte {place} zu mir: „{quote}“|{P} und {Q} haben {place} über {topic} diskutiert.|Ich habe mit {P}
  {place} über {topic} gesprochen.|{P} fragte mich, ob ich {obj} schon gesehen habe.|{life}
plan: Morgen will ich {obj} {inf}.|Bevor der Tag endet, will ich mit {P} {obj} {inf}.
artifact: Ich habe eine Skizze angelegt, die {obj} zeigt; {P} soll sie morgen prüfen.|Neue Notiz im Wiki: wie wir
  {obj} {part} haben, mit Fotos vom Whiteboard.
reflection: Mir fällt auf, dass {P} und ich am besten arbeiten, wenn wir früh miteinander reden.|{P} hat recht
  behalten: weniger Inhalte, dafür fertige.|Die Deadline drückt mehr auf die Stimmung, als alle zugeben.
chat: Wie war dein {span}?|Ich war gestern {cplace} und habe {cact}.|{life}|{life}|{life}|Das klingt {adj}!|Ich habe
  mit {P} über {topic} geredet.|Bei mir ist gerade viel los, {P} braucht ständig Hilfe.
chat_reflection: Mit {O} kann ich über alles reden, auch über {topic}.|{O} und ich reden oft über {topic}.
open: Heute Vormittag|Nach dem Mittagessen|Im Stand-up|Am Whiteboard|Beim Playtest|Kurz vor Feierabend|In der
  Kaffeeküche|Während der Besprechung|Gleich am Morgen|Nach dem Regen|Spät am Abend|In der Pause|Am Freitag
obj: die Silhouette der Knochentürme|den Abstieg in die Aschen-Einöden|die Dialogzeilen der Heldin|den Bosskampf auf
  der dritten Ebene|die Musik der Katakomben|die Animation der Katze im Lagerhaus|die Karte des Gebirges|die
  Kamerafahrt im Intro|die Schatten im Wald|das Tutorial|den Händler mit dem Fahrrad|das Buch des Chronisten
part: überarbeitet|gründlich geprüft|neu gezeichnet|mit dem Team besprochen|in Frage gestellt|für den Vertical Slice
  gekürzt|vermessen|ausprobiert|verworfen|umgebaut|vertont|dokumentiert|vereinfacht
inf: überarbeiten|prüfen|neu zeichnen|besprechen|kürzen|testen|dokumentieren|vereinfachen
place: in der Kaffeeküche|am Fenster|auf dem Balkon|im Besprechungsraum|im Flur|beim Mittagessen|in der Kantine|am
  Kicker|auf dem Hof|an der Bushaltestelle
topic: die Deadline|den Urlaub im Herbst|das neue Level|den ewig verspäteten Bus|das Wetter|die Katze im Hinterhof|den
  schlechten Kaffee|die Wohnungssuche|ein Konzert im Stadtpark|die Mieten in der Stadt
life: {P} hat ein Video von {sein}er Katze gezeigt.|{P} sagt, die Katze habe heute Nacht alle Pflanzen umgeworfen.|{P}
  war als Kind jeden Sommer bei den Großeltern auf dem Land.|{Pg} Familie kommt zu Ostern, {er} ist schon nervös.|{P}
  will wieder ein Instrument lernen, weiß aber nicht welches.|{P} ist auf eine Hochzeit eingeladen und sucht ein
  Geschenk.|{P} kam mit Kreide an den Händen vom Bouldern zurück.|{P} hat sich eine neue Kaffeetasse mit dem Logo des
  Studios bestellt.|{P} war am Sonntag auf dem Flohmarkt und hat eine alte Kamera gekauft.|{P} hat Salat aus dem
  Schrebergarten {sein}er Eltern mitgebracht.|{P} hilft {sein}em Bruder, die Masterarbeit Korrektur zu lesen.|{P}
  überlegt, sich ein Rennrad zu kaufen.|{P} hat Angst, dass die Deadline nicht zu halten ist.|{P} erzählt von den
  Tieren auf dem Bauernhof {sein}er Tante.|{P} interessiert sich für einen Kochkurs an der Volkshochschule.|{Pg}
  Schwester zieht nächsten Monat nach Hamburg.|{P} hat vom Lohn dieses Monats endlich die Zahnarztrechnung
  bezahlt.|{P} geht in der Mittagspause mit dem Hund einer Freundin spazieren.|{P} hat das Wochenende bei {sein}en
  Eltern verbracht.|{P} weiß noch nicht, wohin es im Sommer gehen soll.|{P} hat ein Buch über Pilze ausgeliehen und
  liest es in der Bahn.|{P} sucht eine Wohnung mit Balkon, gern in der Altstadt.|{P} trainiert abends im Park für
  einen Lauf.|{P} hat im Tierheim einen Nachmittag lang Hunde ausgeführt.|{P} ist heute mit dem Bus gekommen, weil es
  geregnet hat.|{P} hat {sein} Zimmer in einer neuen Farbe gestrichen.|{P} hat keine Zeit für Sport, sagt {er}.|{P}
  hat beruflich schon viel ausprobiert, bevor {er} Spiele gemacht hat.|{P} hat gestern ein Tier im Wald gesehen,
  vielleicht einen Fuchs.|{P} hat {sein}en Hund heute zum ersten Mal allein gelassen.|{Pg} Katze ist krank und war
  beim Tierarzt.
mood: ungewöhnlich still|bester Laune|ziemlich gereizt|müde, aber zufrieden|voller neuer Ideen
quote: Wir sollten das heute noch fertig machen.|Ich brauche erst einen Kaffee.|Hast du das Buch gelesen, das ich dir
  geliehen habe?|Die Katze im Hinterhof hat wieder Junge.|Ich bin heute mit dem Rad gekommen, trotz Regen.|Am
  Wochenende fahre ich zu meinen Eltern.
follow: Das Ergebnis wirkt stimmiger als gestern, aber die Übergänge sind noch zu hart.|Draußen hat es den ganzen Tag
  geregnet.|{P} wirkte dabei ungewöhnlich still.|Am Ende haben wir uns auf einen Kompromiss geeinigt.
span: Wochenende|Tag|Urlaub|Montag|Abend gestern|Termin beim Zahnarzt|Ausflug
cplace: im Park|bei meinen Eltern|im Kino|auf dem Markt|am See|in der Bibliothek|im Baumarkt|bei {P}|im Schwimmbad|auf
  einem Flohmarkt|im Museum
cact: ein Eis gegessen|einen alten Freund getroffen|Fotos gemacht|ein Regal aufgebaut|mich verlaufen|Kuchen gebacken
adj: toll|anstrengend|nach einem guten Plan|ziemlich verrückt|typisch {P}|wunderschön
chat_follow: Erzähl mir morgen mehr davon.|Ehrlich gesagt war ich ziemlich müde.|Haha, typisch.
"""
POOLS_EN = """
people: Vera:f Darius:m Nami:f Toby:m Finn:m Emre:m Leo:m Greta:f Jane:f Paul:m Mira:f Carl:m
speakers: Ana:f Caroline:f
leads: ||Guess what?|Did I tell you?|Oh, and:|News:
observation: {open} {P} {part} {obj}.|{life}|{life}|{open} I {part} {obj}.|{P} and {Q} {part} {obj} {place}.|{open}
  {P} was {mood}.
conversation: {P} said to me {place}: “{quote}”|{P} and {Q} argued about {topic} {place}.|I talked to {P} {place}
  about {topic}.|{P} asked me whether I had seen {obj} yet.|{life}
plan: Tomorrow I want to {inf} {obj}.|Before the day ends I want to {inf} {obj} with {P}.
artifact: I made a sketch showing {obj}; {P} will review it tomorrow.|New wiki note: how we {part} {obj}.
reflection: I notice that {P} and I work best when we talk early.|{P} was right: less content, but finished.|The
  deadline weighs on the mood more than anyone admits.
chat: How was your {span}?|Yesterday I was {cplace} and {cact}.|{life}|{life}|{life}|That sounds {adj}!|I talked to
  {P} about {topic}.|It's busy here, {P} needs help all the time.
chat_reflection: I can talk to {O} about anything, even {topic}.|{O} and I often talk about {topic}.
open: This morning|After lunch|At stand-up|At the whiteboard|During the playtest|Just before closing time|In the
  kitchen|During the meeting|First thing|After the rain|Late in the evening|During the break|On Friday
obj: the silhouette of the bone towers|the descent into the ash wastes|the heroine's dialogue lines|the boss fight on
  the third level|the music of the catacombs|the animation of the cat in the warehouse|the mountain map|the camera
  move in the intro|the shadows in the forest|the tutorial|the merchant with the bicycle|the chronicler's book
part: reworked|checked|redrew|discussed|questioned|cut down|measured|tried out|scrapped|rebuilt|added sound
  to|documented|simplified|sketched|played through
inf: rework|check|redraw|discuss|cut down|test|document|simplify
place: in the kitchen|by the window|on the balcony|in the meeting room|in the hallway|over lunch|in the canteen|at the
  foosball table|in the courtyard|at the bus stop
topic: the deadline|the autumn holiday|the new level|the bus that is never on time|the weather|the cat in the
  backyard|the bad coffee|flat hunting|a concert in the park|rents in the city
life: {P} showed a video of {his} cat.|{P} says the cat knocked over all the plants last night.|{P} spent every summer
  at {his} grandparents' farm as a child.|{Pg} family is visiting at Easter and {he} is already nervous.|{P} wants to
  learn an instrument again but doesn't know which.|{P} is invited to a wedding and still needs a present.|{P} came
  back from bouldering with chalk on {his} hands.|{P} ordered a new mug with the studio logo.|{P} went to the flea
  market on Sunday and bought an old camera.|{P} brought lettuce from {his} parents' allotment.|{P} is helping {his}
  brother proofread a master's thesis.|{P} is thinking about buying a racing bike.|{P} is afraid the deadline can't be
  met.|{P} talks about the animals on {his} aunt's farm.|{P} is interested in a cooking course at the adult education
  centre.|{Pg} sister is moving to Glasgow next month.|{P} finally paid the dentist bill from this month's salary.|{P}
  walks a friend's dog at lunchtime.|{P} spent the weekend at {his} parents' place.|{P} doesn't know yet where to go
  in the summer.|{P} borrowed a book about mushrooms and reads it on the train.|{P} is looking for a flat with a
  balcony, ideally in the old town.|{P} trains in the park in the evenings for a race.|{P} spent an afternoon walking
  dogs at the animal shelter.|{P} came by bus today because it was raining.|{P} painted {his} room a new colour.|{P}
  says {he} has no time for sport.|{P} tried a lot of jobs before making games.|{P} saw an animal in the woods
  yesterday, maybe a fox.|{P} left {his} dog alone for the first time today.|{Pg} cat is ill and was at the vet.
mood: unusually quiet|in a great mood|rather irritable|tired but content|full of new ideas
quote: We should finish this today.|I need a coffee first.|Have you read the book I lent you?|The cat in the backyard
  has kittens again.|I came by bike today, despite the rain.|I'm visiting my parents at the weekend.
follow: The result feels more coherent than yesterday, but the transitions are still too harsh.|It rained all day
  outside.|{P} was unusually quiet about it.|In the end we agreed on a compromise.
span: weekend|day|holiday|Monday|evening yesterday|dentist appointment|trip
cplace: in the park|at my parents'|at the cinema|at the market|by the lake|in the library|at the DIY store|at {P}'s
  place|at the pool|at a flea market|in the museum
cact: had an ice cream|met an old friend|took photos|built a shelf|got lost|baked a cake
adj: great|exhausting|like a good plan|pretty crazy|typical of {P}|beautiful
chat_follow: Tell me more tomorrow.|Honestly, I was pretty tired.|Haha, typical.
"""


def records(text: str) -> list[str]:
    out: list[str] = []
    for line in text.strip().splitlines():
        out[-1:] = [out[-1] + " " + line.strip()] if line.startswith("  ") else out[-1:] + [line]
    return out


def bar(text: str) -> list[str]:
    return [part.strip() for part in text.split("|")]


def pools(text: str) -> dict:
    data = {key: bar(value) for key, value in (rec.split(": ", 1) for rec in records(text))}
    for key in ("people", "speakers"):
        data[key] = [tuple(p.split(":")) for p in data[key][0].split()]
    return data


FACTS = {lang: [[f.strip() for f in rec.split("~")] for rec in records(text)]
         for lang, text in (("de", FACTS_DE), ("en", FACTS_EN))}
LANG = {"de": {**pools(POOLS_DE), "lang": "de"}, "en": {**pools(POOLS_EN), "lang": "en"}}


@functools.cache
def fields(pattern: str) -> list[str]:
    return [f for _, f, _, _ in string.Formatter().parse(pattern) if f]


def person(language: str, name: str, gender: str) -> dict[str, str]:
    genitive = name + ("'s" if language == "en" else "'" if name[-1] in "sxzß" else "s")  # Leos, Darius'
    return {"P": name, "Pg": genitive, **PRONOUNS[language][gender]}


def fill(rng: random.Random, L: dict, pattern: str, slots: dict[str, str]) -> str:
    text = pattern.format(**{f: rng.choice(L[f]) for f in fields(pattern) if f not in slots}, **slots)
    return fill(rng, L, text, slots) if "{" in text else text  # a choice may hold slots ({life} → {P}, {sein})


def filler(rng: random.Random, L: dict, style: str, i: int) -> tuple[str, str, str | None]:
    """(type, description, colleague mentioned) for line ``i``."""
    if style == "chat":
        slots = person(L["lang"], *rng.choice(L["people"]))
        text = fill(rng, L, rng.choice(L["chat"]), slots)
        more = rng.choice((None, None, "chat", "chat_follow"))  # half the lines say a second thing
        text += " " + fill(rng, L, rng.choice(L[more]), slots) if more else ""
        return "conversation", f"{L['speakers'][(i + i // 7) % 2][0]}: {text}", None  # now and then twice in a row
    kind = rng.choices(("observation", "conversation", "plan", "artifact"), (55, 27, 10, 8))[0]
    (name, gender), (other, _) = rng.sample(L["people"], 2)
    slots = {**person(L["lang"], name, gender), "Q": other}
    text = fill(rng, L, rng.choice(L[kind]), slots)
    for follow in rng.sample(L["follow"], rng.choice((0, 1, 1, 2))):
        text += " " + fill(rng, L, follow, slots)
    return kind, text, name


def build(style: str, language: str, size: int, seed: int = 1) -> tuple[list[dict], list[dict]]:
    """The memory lines of one stream (dicts as in the JSONL file) and the questions about it."""
    rng = random.Random(f"{style}/{language}/{size}/{seed}")
    L, chat = LANG[language], style == "chat"
    speakers = [s for s, _ in L["speakers"]]
    reflections = set(range(REFLECTION_EVERY - 1, size, REFLECTION_EVERY))
    planted: dict[int, tuple[str, str, str | None]] = {}  # line index -> (type, description, colleague)

    def spot(lo: int = 0, hi: int = size, pair: bool = False) -> int:
        while True:
            i = rng.randrange(lo, hi)
            if all(j < size and j not in planted and j not in reflections for j in (i, i + 1)[:1 + pair]) and (
                    not pair or i % PER_SCENE < PER_SCENE - 1):  # a pair stays in one scene
                return i

    def said(text: str, by: str | None = None) -> str:
        lead = rng.choice(L["leads"]) if chat else ""
        return f"{by or rng.choice(speakers)}: {lead + ' ' if lead else ''}{text}" if chat else text

    near_misses = 1 + (size >= 10_000) + (size >= 100_000)
    questions = []
    for t, (kind, text, question, misses, answers) in enumerate(FACTS[language]):
        people = L["speakers"] if kind == "a" and chat else rng.sample(L["people"], 4)
        for (name, gender), answer in zip(people, rng.sample(bar(answers), len(people))):
            slots = {**person(language, name, gender), "X": answer}
            parts = [p.format(**slots) for p in bar(text)]
            other = next(s for s in speakers if s != name)
            if kind == "s":
                lines = [(spot(), said(parts[0]))]
            elif kind == "a" and chat:
                i = spot(pair=True)
                lines = [(i, f"{other}: {parts[0]}"), (i + 1, f"{name}: {parts[1]}")]
            elif kind == "a":
                (me, ask, reply), i = ASKED[language], spot(pair=True)
                asker = rng.choice([me] + [c for c, _ in L["people"] if c != name])
                lines = [(i, ask.format(A=asker, P=name, s=parts[0])), (i + 1, reply.format(P=name, s=parts[1]))]
            else:
                first = spot(0, size - size // 4)
                planted[first] = ("", "", None)  # reserved while the second part finds its place
                lines = [(first, said(parts[0])), (spot(min(size - 1, first + size // 10)), said(parts[1]))]
            for i, line in lines:
                planted[i] = ("conversation" if kind == "a" or chat else rng.choice(("observation", "conversation")),
                              line, None if chat else name)
            for miss in rng.choices(bar(misses), k=near_misses):
                line = said(miss.format(**slots), other if kind == "a" and chat else None)
                planted[spot()] = ("conversation" if chat else "observation", line, None if chat else name)
            questions.append({"id": f"q{len(questions) + 1:03d}", "text": question.format(**slots),
                              "language": language, "style": style, "kind": "single" if kind == "s" else "multi",
                              "evidence": [f"{AGENT}-{i + 1:03d}" for i, _ in sorted(lines)], "answer": answer,
                              "template": t, "position": round(min(lines)[0] / size, 3)})

    rows = []
    for i in range(size):
        if i in reflections:
            slots = {**person(language, *rng.choice(L["people"])), "O": speakers[1]}
            kind, colleague = "reflection", None
            text = fill(rng, L, rng.choice(L["chat_reflection" if chat else "reflection"]), slots)
            evidence = [f"{AGENT}-{e + 1:03d}" for e in sorted(rng.sample(range(i - REFLECTION_EVERY + 1, i), 3))]
        else:
            (kind, text, colleague), evidence = planted[i] if i in planted else filler(rng, L, style, i), []
        tags = [] if chat else rng.sample(TAGS, rng.choice((1, 2, 2, 3))) + (
            [colleague.lower()] if colleague and rng.random() < 0.5 else [])
        rows.append({"id": f"{AGENT}-{i + 1:03d}", "created": f"day-{i // PER_DAY + 1:03d}/scene-"
                     f"{i % PER_DAY // PER_SCENE + 1:02d}", "type": kind, "depth": int(kind == "reflection"),
                     "description": text, "importance": rng.choices(range(1, 11), IMPORTANCE_WEIGHTS)[0],
                     "tags": tags, "evidence": evidence, "metadata": {}})
    return rows, questions


def write_workspace(root: Path, rows: list[dict], language: str) -> None:
    """A minimal workspace: the world, the agent Ana and her stream."""
    for folder in ("agents", "memories"):
        (root / "state" / folder).mkdir(parents=True, exist_ok=True)
    day, scene = (int(x.split("-")[1]) for x in rows[-1]["created"].split("/"))
    world = {"studio": "Bench", "language": language, "day": day, "scene": scene, "seed": 1}
    agent = {"id": AGENT, "name": "Ana", "role": "Bench", "persona": "Eine Figur für den Benchmark."}
    for path, data in (("world.json", world), (f"agents/{AGENT}.json", agent)):
        (root / "state" / path).write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    with open(root / "state" / "memories" / f"{AGENT}.jsonl", "w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
